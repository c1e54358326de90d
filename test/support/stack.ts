// The one way tests start the reference stack in their own process: real TLS on ephemeral ports, real
// PGlite (or PostgreSQL when DATABASE_URL is set, as the stack itself reads it), real embedded Anvil with
// instant mining. Settings a test needs go in `env` over TEST_STACK_ENV; the stack's internals stay reachable.
// The harness's own in-process target (conformance/targets/reference.ts) is product code and keeps its own
// settings, which a QA team's run needs.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import type { Target } from '../../conformance/targets/target.ts';
import type { Clock } from '../../src/clock.ts';
import { type Config, loadConfig } from '../../src/config.ts';
import type { Stack } from '../../src/server/app.ts';
import { listen, type ReadyEvent } from '../../src/server/main.ts';

/** What every test stack runs with unless a test says otherwise: ephemeral ports, a block per transaction. */
export const TEST_STACK_ENV: Readonly<Record<string, string>> = {
  SVC_BASE_PORT: '0',
  SVC_WALLET_PORT: '0',
  SVC_SITE_PORT: '0',
  SVC_BLOCK_TIME: '0',
};

/**
 * The per-IP rate limits of /api (institutional), /rpc, the explorer and /admin, lifted (0 turns a limit off).
 * For tests that drive the stack faster than one client would; test/ratelimits covers the limits themselves.
 */
export const LIFTED_LIMITS: Readonly<Record<string, string>> = {
  SVC_RATE_LIMIT: '0',
  SVC_RATE_LIMIT_RPC: '0',
  SVC_RATE_LIMIT_EXPLORER: '0',
  SVC_RATE_LIMIT_ADMIN: '0',
};

/** The trust Node started with, before any test stack's development CA was added. */
const startingTrust = tls.getCACertificates('default');

/**
 * Makes `caCert` (a test stack's development CA) the one extra CA this process trusts by default, as
 * NODE_EXTRA_CA_CERTS would, so plain `fetch` and stock clients reach that stack. It replaces the CA of an earlier
 * stack rather than adding to it, so a worker that runs several files (D-227) trusts only the stack under test;
 * the CAs themselves are distinct (D-282), so a stack that inherits an earlier one's CA still verifies its own.
 */
export function trustTestCa(caCert: string): void {
  tls.setDefaultCACertificates([...startingTrust, caCert]);
}

/** Options of {@link startTestStack}. */
export type TestStackOptions = {
  /** Settings over {@link TEST_STACK_ENV}. */
  env?: Record<string, string>;
  /**
   * The data directory. Given, it is kept on close (another stack may start on it) and the stack persists its
   * database and chain state there, as `svckit serve` does; absent, a fresh one is made and removed on close.
   */
  dataDir?: string;
  /** Persist the database and chain state (default: true exactly when `dataDir` is given). */
  persist?: boolean;
  /** The stack's clock (default: the system clock). */
  clock?: Clock;
  /** pino level of the request log (default: silent). */
  logLevel?: string;
  /** Trust the stack's development CA by default in this process ({@link trustTestCa}), so plain `fetch` reaches it. */
  trustCa?: boolean;
};

/** A running test stack. */
export type TestStack = {
  stack: Stack;
  ready: ReadyEvent;
  config: Config;
  dataDir: string;
  /** The stack as a conformance target (base, wallet, site, admin), for the HTTPS helpers. */
  target: Target;
  /** Stops the stack; removes the data directory unless the caller gave it. Safe to call twice. */
  close(): Promise<void>;
};

/** Starts the reference stack in this process with `options.env` over {@link TEST_STACK_ENV}. */
export async function startTestStack(options: TestStackOptions = {}): Promise<TestStack> {
  const owned = options.dataDir === undefined;
  const dataDir = options.dataDir ?? mkdtempSync(path.join(tmpdir(), 'svckit-test-'));
  const config = loadConfig({ SVC_DATA_DIR: dataDir, ...TEST_STACK_ENV, ...options.env });
  const { stack, ready } = await listen(config, {
    logLevel: options.logLevel ?? 'silent',
    persist: options.persist ?? !owned,
    ...(options.clock ? { clock: options.clock } : {}),
  });
  if (options.trustCa) trustTestCa(stack.tls.caCert);
  const target: Target = {
    kind: 'reference',
    base: new URL(`${ready.base}/`),
    wallet: new URL(`${ready.wallet}/`),
    site: new URL(`${ready.site}/`),
    caCert: stack.tls.caCert,
    capabilities: new Set(['specs', 'base', 'wallet', 'site', 'admin']),
    // A restart on a kept data directory prints no token: the caller carries the first one over.
    ...(ready.adminToken ? { adminToken: ready.adminToken } : {}),
  };
  let closed = false;
  return {
    stack,
    ready,
    config,
    dataDir,
    target,
    close: async () => {
      if (closed) return;
      closed = true;
      await stack.close();
      if (owned) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
