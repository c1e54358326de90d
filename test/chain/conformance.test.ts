// The surface C and transport checks run against the reference stack on a real Anvil, with
// real hybrid post-quantum TLS. One stack for the whole file; the checks run through the harness's runner.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCatalogue } from '../../conformance/checks/index.ts';
import { runChecks, summarise, type CheckResult } from '../../conformance/runner.ts';
import { referenceTarget } from '../../conformance/targets/reference.ts';
import { remoteTarget } from '../../conformance/targets/remote.ts';
import type { Target } from '../../conformance/targets/target.ts';

const PREFIXES = ['chain', 'transport'];
const EXPECTED_IDS = [
  'chain.eth_chainid.value',
  'chain.net_version',
  'chain.gas_price_zero',
  'chain.web3_sha3.value',
  'chain.eth_syncing.caught_up',
  'chain.methods.schemas',
  'chain.methods.schemas_with_transactions',
  'chain.errors.parse_error',
  'chain.errors.invalid_request',
  'chain.errors.invalid_params',
  'chain.errors.method_not_found',
  'chain.errors.method_not_enabled',
  'chain.batch.empty',
  'chain.batch.oversized',
  'chain.batch.answers_each',
  'chain.lookups.unknown_null',
  'chain.permissioning.unfunded_sender',
  'chain.receipt.null_while_pending',
  'chain.qbft.validators_by_number',
  'chain.qbft.validators_by_hash',
  'chain.qbft.unknown_block_null',
  'chain.qbft.votes',
  'transport.tls.hybrid_group',
  'transport.tls.classical_refused',
  'transport.tls.legacy_version_refused',
  'transport.plain_http_refused',
];
// Checks that send transactions or drive the chain; elsewhere they are skipped, never passed.
const REFERENCE_ONLY = [
  'chain.methods.schemas_with_transactions',
  'chain.receipt.null_while_pending',
  'chain.qbft.votes',
];

let target: Target;
let results: CheckResult[];
const failures = (list: CheckResult[]) =>
  list.filter((r) => r.status !== 'passed').map((r) => `${r.id}: ${r.status}: ${r.reason}`);

beforeAll(async () => {
  target = await referenceTarget();
  results = await runChecks(buildCatalogue(), target, { only: PREFIXES });
});
afterAll(async () => {
  await target?.close?.();
});

describe('surface C and transport checks on the reference stack', () => {
  it('registers every surface C and transport check in the catalogue', () => {
    expect(results.map((r) => r.id).sort()).toEqual([...EXPECTED_IDS].sort());
  });

  it('passes every check and skips none', () => {
    expect(failures(results)).toEqual([]);
    expect(summarise(results)).toEqual({ passed: EXPECTED_IDS.length, failed: 0, skipped: 0 });
  });

  it('validates the result of every HTTP method of chain.openrpc.json at least once', () => {
    const doc = JSON.parse(readFileSync(new URL('../../specs/chain.openrpc.json', import.meta.url), 'utf8')) as {
      methods: { name: string; 'x-transport'?: string }[];
    };
    const httpMethods = doc.methods.filter((m) => m['x-transport'] !== 'websocket').map((m) => m.name);
    expect(httpMethods.length).toBeGreaterThanOrEqual(28);
    const validated = new Set(
      results
        .filter((r) => r.id.startsWith('chain.methods.'))
        .flatMap((r) => (r.actual as { validated: string[] }).validated),
    );
    expect(httpMethods.filter((m) => !validated.has(m))).toEqual([]);
  });

  it('sees the hybrid group on every origin and refuses classical-only, TLS 1.2 and plain-HTTP clients', () => {
    const byId = new Map(results.map((r) => [r.id, r]));
    expect(byId.get('transport.tls.hybrid_group')?.reason).toBe('TLSv1.3 with X25519MLKEM768 on base, wallet, site');
    expect(byId.get('transport.tls.classical_refused')?.reason).toBe(
      'classical-only handshakes refused on base, wallet, site',
    );
    expect(byId.get('transport.plain_http_refused')?.reason).toBe(
      'plain HTTP closed without an HTTP answer on base, wallet, site',
    );
  });

  it('runs the same checks against the stack given by URL (svckit conformance --base), skipping only the chain-driving ones', async () => {
    const remote = remoteTarget({ base: target.base!, caCert: target.caCert! });
    const viaUrl = await runChecks(buildCatalogue(), remote, { only: PREFIXES });
    const skipped = viaUrl.filter((r) => r.status === 'skipped');
    expect(skipped.map((r) => r.id).sort()).toEqual([...REFERENCE_ONLY].sort());
    for (const r of skipped)
      expect(r.reason).toMatch(
        /needs capabilit(y|ies) .*'reference'|needs a funded, allow-listed sender: the in-process reference/,
      );
    expect(failures(viaUrl.filter((r) => r.status !== 'skipped'))).toEqual([]);
  });
});
