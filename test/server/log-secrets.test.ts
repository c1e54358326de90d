// D-269, D-270: across a whole conformance run (the hand-written checks of every surface, then every generated
// phase, --max-examples 3) against the in-process reference stack logging at `trace`, its most verbose level, no
// log line holds a secret: the admin token, the API tokens, the webhook secrets, the wallet session tokens (all
// read from the run's own unredacted exchanges), the accounts' private keys (decrypted from the database after
// the run), the TLS private key and the KEK. The lines are those the process writes to stderr during the run.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { aes256Gcm } from '@svckit/sdk/crypto';
import { buildCatalogue } from '../../conformance/checks/index.ts';
import { runGeneratedChecks } from '../../conformance/engine/run-generated.ts';
import { UNLIMITED_REFERENCE_ENV } from '../../conformance/engine/target.ts';
import type { RunEvent } from '../../conformance/events.ts';
import { executeRun, type GeneratedRunner, type RunOutcome } from '../../conformance/runner.ts';
import { referenceTarget } from '../../conformance/targets/reference.ts';
import type { Target } from '../../conformance/targets/target.ts';
import type { Stack } from '../../src/server/app.ts';
import { accounts } from '../../src/storage/schema.ts';

/** A secret and where it came from (for the failure message, never printed whole). */
type Secret = { kind: string; value: string };

/** Body fields whose string values are secrets (tokens, secrets, private keys, passwords, codes). */
const SECRET_FIELD = /token|secret|private|password|passphrase|kek|mnemonic|^code$/i;
const NOT_SECRET_FIELD = /public|id$|ids$|expires|_at$|At$|count|type|kind|prefix|hint|url$/i;
/** Credential schemes whose value after the scheme is a secret (SVC-MLDSA signatures are not). */
const BEARER = /^(?:Bearer|SVC-Session)\s+(\S{8,})$/i;

const lines: string[] = [];
const secrets: Secret[] = [];
let target: Target;
let stack: Stack;
let outcome: RunOutcome;
const events: RunEvent[] = [];
const kek = randomBytes(32).toString('base64url');

function secretFields(value: unknown, kind: string, out: Secret[], key = ''): void {
  if (typeof value === 'string') {
    if (value.length >= 12 && SECRET_FIELD.test(key) && !NOT_SECRET_FIELD.test(key)) out.push({ kind, value });
    return;
  }
  if (Array.isArray(value)) for (const item of value) secretFields(item, kind, out, key);
  else if (value && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) secretFields(v, kind, out, k);
}

const parsed = (body: string | undefined): unknown => {
  try {
    return body ? JSON.parse(body) : undefined;
  } catch {
    return undefined;
  }
};

/** The secrets a run's exchanges carry: credential headers, and secret fields of request and answer bodies. */
function secretsOfExchanges(all: RunEvent[]): Secret[] {
  const out: Secret[] = [];
  for (const event of all) {
    if (event.type !== 'case_sent') continue;
    for (const [name, value] of Object.entries(event.request.headers)) {
      const bearer = BEARER.exec(value);
      if (name.toLowerCase() === 'authorization' && bearer) out.push({ kind: 'credential header', value: bearer[1]! });
    }
    const path = new URL(event.request.url).pathname;
    secretFields(parsed(event.request.body), `request body of ${path}`, out);
    if (event.response) secretFields(parsed(event.response.body), `answer of ${path}`, out);
  }
  return out;
}

/** The lines that hold a secret, with the secret's kind and a short prefix of it. */
function leaks(logLines: readonly string[], known: readonly Secret[]): string[] {
  const found: string[] = [];
  for (const line of logLines)
    for (const secret of known)
      if (line.includes(secret.value)) found.push(`${secret.kind} ${secret.value.slice(0, 6)}…: ${line.slice(0, 200)}`);
  return found;
}

beforeAll(async () => {
  // The lines are kept, not passed on: a trace-level run writes hundreds of kilobytes.
  const spy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    lines.push(...String(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8')).split('\n'));
    return true;
  });
  try {
    target = await referenceTarget({
      env: { ...UNLIMITED_REFERENCE_ENV, SVC_KEK: kek },
      persist: true,
      logLevel: 'trace',
      injectFault: (started) => {
        stack = started;
      },
    });
    // The generated checks on this very stack (not one of their own, as `svckit conformance` starts), so its log is this one.
    const generated: GeneratedRunner = (t, plan, options) =>
      runGeneratedChecks({ ...t, kind: 'remote' }, plan, options);
    outcome = await executeRun(buildCatalogue(), target, {
      phases: ['examples', 'coverage', 'fuzz', 'stateful'],
      seed: 20261128,
      maxExamples: 3,
      generated,
      events: (event) => events.push(event),
    });
    // The accounts' chain keys, decrypted as the stack does to sign.
    const rows = await stack.database.db.select().from(accounts);
    for (const row of rows) {
      const dek = stack.ledger.keyring.unwrap(row.kekId, row.wrappedDek);
      const sealed = row.chainKeyCiphertext;
      const key = aes256Gcm.decrypt(
        dek,
        sealed.subarray(0, 12),
        sealed.subarray(12),
        new TextEncoder().encode(`${row.id}/chain`),
      );
      secrets.push({ kind: 'account private key', value: Buffer.from(key).toString('hex') });
    }
    secrets.push(
      { kind: 'admin token', value: target.adminToken! },
      { kind: 'KEK', value: kek },
      // Every full line of the TLS private key's PEM (a log would show the key as a JSON string).
      ...stack.tls.key
        .split('\n')
        .filter((line) => line.length >= 40 && !line.startsWith('-----'))
        .map((value) => ({ kind: 'TLS private key', value })),
      ...secretsOfExchanges(events),
    );
  } finally {
    spy.mockRestore();
  }
}, 1_500_000);

afterAll(async () => {
  await target?.close?.();
});

describe('no secret in the logs (D-269, D-270)', () => {
  it('ran every phase over every surface, with logs at their most verbose', () => {
    const ran = new Set(outcome.results.filter((r) => r.status !== 'skipped').map((r) => r.id.split('.')[0]));
    for (const surface of ['specs', 'chain', 'explorer', 'institutional', 'webhooks', 'wallet', 'generated'])
      expect(ran, surface).toContain(surface);
    const json = lines.filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>);
    const completions = json.filter((l) => l.msg === 'request completed');
    expect(completions.length).toBeGreaterThan(1000);
    // Every completion names its request and route; the routes of every origin are there.
    for (const line of completions)
      expect(line).toMatchObject({ requestId: expect.any(String), route: expect.any(String) });
    const routes = new Set(completions.map((l) => l.route));
    for (const route of ['/rpc', '/wallet/api/v1/transfers', '/admin/v1/api-keys', '/auth/challenge', '/api/'])
      expect(
        [...routes].some((r) => String(r).startsWith(route)),
        route,
      ).toBe(true);
  });

  it('collected the secrets of the run: each kind is there', () => {
    const kinds = new Set(secrets.map((s) => s.kind));
    for (const kind of ['admin token', 'KEK', 'TLS private key', 'account private key', 'credential header'])
      expect(kinds, kind).toContain(kind);
    const fromBodies = secrets.filter((s) => s.kind.startsWith('answer of') || s.kind.startsWith('request body of'));
    for (const path of ['/admin/v1/api-keys', '/secret', '/auth/verify'])
      expect(
        fromBodies.some((s) => s.kind.includes(path)),
        path,
      ).toBe(true);
  });

  it('finds none of them in any log line', () => {
    expect(leaks(lines, secrets)).toEqual([]);
  });

  it('would find one that was logged', () => {
    const token = secrets.find((s) => s.kind.includes('/admin/v1/api-keys'))!;
    const logged: string[] = [];
    const spy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
      logged.push(String(chunk));
      return true;
    });
    try {
      stack.base.log.info({ authorization: `Bearer ${token.value}` }, 'a deliberate leak');
    } finally {
      spy.mockRestore();
    }
    expect(leaks(logged, secrets).length).toBeGreaterThan(0);
  });
});
