// The engine's writes put back (D-235): the phases examples, coverage, stateful and a small fuzz run against the
// in-process reference reached as a deployment (a remote target at its URLs, so the deployment rules hold, D-236,
// D-237), then the run's cleanup. What the admin API shows afterwards equals what it showed before: the same
// active API and ML-DSA keys, webhook endpoints, sender allow-list and validator set, every account that
// existed with its status, and every account the run opened closed (there is no delete, D-008). What existed
// before the run, including an allow-listed address the contract's example names, is left as it was (D-239).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CleanupSummary, cleanUp } from '../../../conformance/cleanup.ts';
import { request } from '../../../conformance/http.ts';
import { runEngine } from '../../../conformance/engine/core/run.ts';
import type { EngineResult } from '../../../conformance/engine/core/types.ts';
import { engineTargetOf, UNLIMITED_REFERENCE_ENV } from '../../../conformance/engine/target.ts';
import { referenceTarget } from '../../../conformance/targets/reference.ts';
import { remoteTarget } from '../../../conformance/targets/remote.ts';
import type { Target } from '../../../conformance/targets/target.ts';

/** The address of the contract's `POST /chain/accounts` example, on the allow-list before the run. */
const EXAMPLE_SENDER = '0x5b38da6a701c568545dcfcb03fcb875f56beddc4';

let reference: Target;
let deployment: Target;
let before: Snapshot;
let after: Snapshot;
let result: EngineResult;
let summary: CleanupSummary;

async function admin<T>(method: string, route: string, body?: unknown): Promise<{ status: number; json: T }> {
  const res = await request(deployment, `admin/v1${route}`, {
    method,
    headers: { authorization: `Bearer ${deployment.adminToken}` },
    ...(body !== undefined ? { body } : {}),
  });
  return { status: res.status, json: res.json as T };
}

async function pages<T>(route: string, member: string): Promise<T[]> {
  const out: T[] = [];
  for (let page = 1; ; page++) {
    const { json } = await admin<Record<string, unknown>>('GET', `${route}?page=${page}&limit=200`);
    const items = json[member] as T[];
    out.push(...items);
    if (items.length === 0 || out.length >= (json.total as number)) return out;
  }
}

type Snapshot = Awaited<ReturnType<typeof snapshot>>;

/** What the admin API shows of the things the engine's writes touch. */
async function snapshot() {
  const active = (list: { id: string; revokedAt: string | null }[]) =>
    list
      .filter((k) => k.revokedAt === null)
      .map((k) => k.id)
      .sort();
  const apiKeys = active((await admin<{ apiKeys: [] }>('GET', '/api-keys')).json.apiKeys);
  const mldsaKeys = active((await admin<{ mldsaKeys: [] }>('GET', '/mldsa-keys')).json.mldsaKeys);
  const endpoints = (await admin<{ endpoints: { id: string }[] }>('GET', '/webhooks/endpoints')).json.endpoints
    .map((e) => e.id)
    .sort();
  const senders = (await pages<{ address: string }>('/chain/accounts', 'accounts'))
    .map((a) => a.address.toLowerCase())
    .sort();
  const validators = (await admin<{ validators: string[] }>('GET', '/qbft/validators')).json.validators
    .map((v) => v.toLowerCase())
    .sort();
  const accounts = Object.fromEntries(
    (await pages<{ id: string; status: string }>('/accounts', 'accounts')).map((a) => [a.id, a.status]),
  );
  return { apiKeys, mldsaKeys, endpoints, senders, validators, accounts };
}

beforeAll(async () => {
  // Blocks every second, as a deployment seals them: the validator set's cleanup waits for blocks (D-182).
  reference = await referenceTarget({ env: { ...UNLIMITED_REFERENCE_ENV, SVC_BLOCK_TIME: '1' } });
  deployment = remoteTarget({
    base: reference.base!,
    wallet: reference.wallet!,
    site: reference.site!,
    caCert: reference.caCert!,
    adminToken: reference.adminToken!,
  });
  // What the deployment holds before the run: an account, a key, an endpoint and an allow-listed address.
  const held = await admin<{ id: string }>('POST', '/accounts', {
    email: 'held@bank.example',
    dailyLimit: 1000,
    singleLimit: 100,
  });
  expect(held.status).toBe(201);
  expect((await admin('POST', '/api-keys', { name: 'held', permissions: ['accounts:read'] })).status).toBe(201);
  const endpoint = await admin('POST', '/webhooks/endpoints', {
    url: 'https://held.svckit-engine.example/receiver',
    accountIds: [held.json.id],
  });
  expect(endpoint.status).toBe(201);
  expect((await admin('POST', '/chain/accounts', { address: EXAMPLE_SENDER })).status).toBe(201);
  before = await snapshot();
  result = await runEngine(await engineTargetOf(deployment), {
    phases: ['examples', 'coverage', 'stateful', 'fuzz'],
    seed: 20261125,
    maxExamples: 5,
    shrinkMs: 2_000,
    surfaces: ['institutional', 'wallet', 'admin'],
  });
  summary = await cleanUp(deployment);
  after = await snapshot();
}, 900_000);

afterAll(async () => {
  await reference?.close?.();
});

describe('a generated run against a deployment puts back what it wrote', () => {
  it('undoes every registered change, and lists the ledger history it leaves', () => {
    expect(summary.failures).toEqual([]);
    // The engine's own key and the accounts of the sequences, at least; the counts are in the report.
    expect(summary.undone['API key']).toBeGreaterThanOrEqual(1);
    expect(summary.undone.account).toBeGreaterThanOrEqual(3);
    const left = Object.fromEntries((summary.left ?? []).map((l) => [l.kind, l.count]));
    // The ledger lifecycle's transfer and the webhook lifecycle's transfer.
    expect(left.transfer).toBeGreaterThanOrEqual(2);
    expect(left.funding).toBeGreaterThanOrEqual(2);
    expect(left['wallet identity']).toBeGreaterThanOrEqual(1);
  });

  it('leaves the keys, endpoints, sender allow-list and validator set as they were', () => {
    expect(after.apiKeys).toEqual(before.apiKeys);
    expect(after.mldsaKeys).toEqual(before.mldsaKeys);
    expect(after.endpoints).toEqual(before.endpoints);
    expect(after.senders).toEqual(before.senders);
    expect(after.senders).toContain(EXAMPLE_SENDER);
    expect(after.validators).toEqual(before.validators);
  });

  it('keeps every account that existed with its status, and closes every account the run opened', () => {
    for (const [id, status] of Object.entries(before.accounts)) expect(after.accounts[id], id).toBe(status);
    const opened = Object.entries(after.accounts).filter(([id]) => !(id in before.accounts));
    expect(opened.length).toBeGreaterThanOrEqual(3);
    for (const [id, status] of opened) expect(status, id).toBe('closed');
  });

  it('sends no valid case to an avoided operation, nor a change of what the run did not make', () => {
    const reasons = result.tallies.flatMap((t) => t.skipReasons);
    for (const op of ['POST /kek/rotate', 'POST /wallet-keys/{name}/rotate', 'POST /admin-token/rotate'])
      expect(reasons.some((r) => r.startsWith(`${op} is sent no valid input on a deployment`))).toBe(true);
    expect(reasons).toContain(
      "PATCH /accounts/{id} is sent valid input on a deployment only for the run's own account (D-236)",
    );
    expect(reasons).toContain(
      "DELETE /chain/accounts/{address} is sent valid input on a deployment only for the run's own chain sender (D-236)",
    );
  });

  it('still runs every sequence: its changes are of what it made', () => {
    for (const t of result.tallies.filter((t) => ['use_after_free', 'ensure_resource_availability'].includes(t.check)))
      expect(t.skipReasons, `${t.surface} ${t.check}`).toEqual([]);
    const passed = (check: string) => result.tallies.filter((t) => t.check === check).reduce((n, t) => n + t.passed, 0);
    expect(passed('ensure_resource_availability')).toBeGreaterThanOrEqual(8);
    expect(passed('use_after_free')).toBeGreaterThanOrEqual(3);
  });
});
