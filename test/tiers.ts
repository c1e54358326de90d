// The two test tiers (D-227). `npm test` runs every test file except those listed here: the unit, contract
// and structure tests and at least one end-to-end pass of each surface against a real stack. The files listed
// here form the full tier, which `npm run test:all` runs beside the PostgreSQL, Redis and cluster passes;
// `.ci/run` runs both tiers. Nothing is dropped: a file is in exactly one tier, and test/structure/tiers.test.ts
// fails when an entry here names no file.

/** Why a file is in the full tier rather than in `npm test`. */
export type FullTierReason =
  | 'conformance run' // a whole group of the harness's checks, or the engine's phases, against a stack
  | 'chromium' // headless Debian Chromium against a stack
  | 'processes' // `svckit serve` or `svckit` child processes, started and stopped as a user would
  | 'fault' // crashes, restarts, time-outs or load, whose subject is real time
  | 'schedule'; // a whole retry schedule or delivery matrix, step by step

/** The full tier: each file, and why it is not in `npm test`. */
export const FULL_TIER: Readonly<Record<string, FullTierReason>> = {
  'test/conformance/deployment.test.ts': 'processes',
  'test/proxy/reference.test.ts': 'conformance run',
  'test/proxy/cli.test.ts': 'processes',
  'test/conformance/two-runs.test.ts': 'conformance run',
  'test/conformance/cli-options.test.ts': 'processes',
  'test/conformance/engine/loop.test.ts': 'conformance run',
  'test/conformance/engine/reference.test.ts': 'conformance run',
  'test/conformance/engine/rpc.test.ts': 'conformance run',
  'test/conformance/engine/writes-cleanup.test.ts': 'conformance run',
  'test/conformance/validator-sizes.test.ts': 'conformance run',
  'test/explorer/conformance.test.ts': 'conformance run',
  'test/chain/conformance.test.ts': 'conformance run',
  'test/webhooks/conformance.test.ts': 'conformance run',
  'test/wallet/checks.test.ts': 'conformance run',
  'test/institutional/transfers.test.ts': 'conformance run',
  'test/institutional/endpoints.test.ts': 'conformance run',
  'test/institutional/broadcast-refusal.test.ts': 'conformance run',
  'test/wallet-client/extension.test.ts': 'chromium',
  'test/wallet-client/extension-wallet.test.ts': 'chromium',
  'test/wallet-client/extension-view.test.ts': 'chromium',
  'test/docs/browser.test.ts': 'chromium',
  'test/console/browser.test.ts': 'chromium',
  'test/conformance/engine/reports.test.ts': 'chromium',
  'test/conformance/report-html.test.ts': 'chromium',
  'test/readme/quickstart.test.ts': 'processes',
  'test/server/log-secrets.test.ts': 'conformance run',
  'test/readme/startup-output.test.ts': 'processes',
  'test/evidence/at-start.test.ts': 'processes',
  'test/admin/cli-resources.test.ts': 'processes',
  'test/cli/replay.test.ts': 'processes',
  'test/diff/cli.test.ts': 'processes',
  'test/institutional/kill-restart.test.ts': 'fault',
  'test/chain/sealing-under-load.test.ts': 'fault',
  'test/webhooks/restart.test.ts': 'fault',
  'test/storage/pglite-thread.test.ts': 'fault',
  'test/server/edge.test.ts': 'fault',
  'test/server/probes.test.ts': 'fault',
  'test/redis/readiness.test.ts': 'fault',
  'test/webhooks/external.test.ts': 'schedule',
  'test/webhooks/dispatcher.test.ts': 'schedule',
};

/**
 * Files of the fast tier that need a process of their own: they replace a module with `vi.mock`, which only a
 * fresh module registry honours. The rest of the fast tier shares one process per worker (D-227), so the modules
 * they all import are loaded once per worker rather than once per file.
 */
export const OWN_PROCESS: readonly string[] = [
  'test/crypto/interop-backend.test.ts',
  'test/chain/ws/mldsa-lookup.test.ts',
  'test/webhooks/verifier.test.ts',
];

/**
 * The end-to-end pass of each surface that `npm test` keeps: a real stack (real Anvil, real TLS, real PGlite)
 * reached over HTTPS by the client an integrator would use.
 */
export const SURFACE_END_TO_END: Readonly<Record<string, string>> = {
  'A institutional REST API': 'test/institutional/sdk.test.ts',
  'B signed payment webhooks': 'test/webhooks/institutions.test.ts',
  'C chain JSON-RPC': 'test/chain/viem.test.ts',
  'D explorer REST API': 'test/explorer/rules.test.ts',
  'E wallet session API': 'test/wallet-client/session.test.ts',
  'F evidence document': 'test/evidence/site-e2e.test.ts',
};

/** The full tier's file paths. */
export const fullTierFiles = (): string[] => Object.keys(FULL_TIER);
