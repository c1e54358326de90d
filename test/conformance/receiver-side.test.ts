// The webhooks.receiver.* checks (D-171) against real HTTPS receivers: one built on verifyWebhook
// passes every check; receivers with one realistic fault each fail exactly the checks that observe it.
import { execFile } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { receiverSideCatalogue, receiverSideTarget, receiverUnderTest } from '../../conformance/receiver-side/index.ts';
import { type CheckResult, runChecks } from '../../conformance/runner.ts';
import { verifyWebhook } from '../../src/client/webhook-verifier.ts';
import { SVCKIT_BIN } from '../../src/paths.ts';
import { ensureDevCertificates, type TlsMaterial } from '../../src/server/tls/dev-certificates.ts';

const SECRET = 'whsec_receiver_side_current_0123456789abcdef';
const RETIRED = 'whsec_receiver_side_retired_0123456789abcdef';

/** What a receiver does with one delivery: true accepts it (204), false refuses it (400). */
type Verify = (raw: string, headers: Record<string, string | string[] | undefined>) => boolean;

/** Remembers accepted `<timestamp>.<signature>` pairs for the 5-minute window; at most 10,000 of them. */
function replayMemory() {
  const seen = new Map<string, number>();
  return (headers: Record<string, string | string[] | undefined>): boolean => {
    const key = `${headers['x-svc-timestamp']}.${headers['x-svc-signature']}`;
    const now = Date.now();
    for (const [k, at] of seen) if (now - at > 300_000 || seen.size > 10_000) seen.delete(k);
    if (seen.has(key)) return false;
    seen.set(key, now);
    return true;
  };
}

const freshEnough = (headers: Record<string, string | string[] | undefined>) =>
  Math.abs(Date.now() / 1000 - Number(headers['x-svc-timestamp'])) <= 300;

/** The receiver an institution should build: verifyWebhook with its current secret, plus a replay memory. */
function correct(): Verify {
  const remember = replayMemory();
  return (raw, headers) => {
    try {
      verifyWebhook(raw, headers, SECRET);
    } catch {
      return false;
    }
    return remember(headers);
  };
}

/** Compares the whole X-SVC-Signature header with `===` against its own `sha256=<digest>`. */
function stringEquality(): Verify {
  const remember = replayMemory();
  return (raw, headers) => {
    const expected = `sha256=${createHmac('sha256', SECRET).update(`${headers['x-svc-timestamp']}.${raw}`).digest('hex')}`;
    return headers['x-svc-signature'] === expected && freshEnough(headers) && remember(headers);
  };
}

/** Verifies the signature but has no replay window: any age, any number of times. */
function noReplayWindow(): Verify {
  return (raw, headers) => {
    try {
      verifyWebhook(raw, headers, SECRET, { toleranceSeconds: Number.MAX_SAFE_INTEGER });
      return true;
    } catch {
      return false;
    }
  };
}

/** Checks the timestamp and remembers deliveries, but accepts any signature. */
function anySignature(): Verify {
  const remember = replayMemory();
  return (_raw, headers) => typeof headers['x-svc-signature'] === 'string' && freshEnough(headers) && remember(headers);
}

let tls: TlsMaterial;
const servers: https.Server[] = [];

/** Starts an HTTPS receiver on 127.0.0.1 answering 204 or 400 as `verify` decides; returns its URL. */
async function serve(verify: Verify): Promise<string> {
  const server = https.createServer({ cert: tls.cert, key: tls.key }, (req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > 65_536) req.destroy();
      else chunks.push(chunk);
    });
    req.on('end', () => {
      res.statusCode = verify(Buffer.concat(chunks).toString('utf8'), req.headers) ? 204 : 400;
      res.end();
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `https://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/svckit`;
}

async function run(verify: Verify, previous: string | null = RETIRED): Promise<CheckResult[]> {
  const receiver = receiverUnderTest({
    url: await serve(verify),
    secret: SECRET,
    previousSecret: previous ?? undefined,
    caCert: tls.caCert,
  });
  return runChecks(receiverSideCatalogue(receiver), receiverSideTarget(receiver));
}

const failedIds = (results: CheckResult[]) =>
  results
    .filter((r) => r.status === 'failed')
    .map((r) => r.id)
    .sort();

beforeAll(async () => {
  tls = await ensureDevCertificates(mkdtempSync(path.join(tmpdir(), 'svckit-receiver-side-')), []);
}, 60_000);

afterAll(async () => {
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
});

describe('webhooks.receiver.* against real HTTPS receivers', () => {
  it('a receiver built on verifyWebhook with a replay memory passes every check, none skipped', async () => {
    const results = await run(correct());
    expect(results.map((r) => [r.id, r.status, r.reason])).toEqual(results.map((r) => [r.id, 'passed', undefined]));
    expect(results).toHaveLength(10);
  }, 60_000);

  it('without --webhook-previous-secret the two checks that need it are skipped with a reason, not passed', async () => {
    const results = await run(correct(), null);
    const skipped = results.filter((r) => r.status === 'skipped');
    expect(skipped.map((r) => r.id).sort()).toEqual([
      'webhooks.receiver.rotation.both_signatures',
      'webhooks.receiver.rotation.previous_after_grace',
    ]);
    for (const r of skipped) expect(r.reason).toContain('--webhook-previous-secret');
    expect(failedIds(results)).toEqual([]);
  }, 60_000);

  it('a receiver comparing the whole header with === fails the rotation checks (D-171)', async () => {
    expect(failedIds(await run(stringEquality()))).toEqual([
      'webhooks.receiver.rotation.both_signatures',
      'webhooks.receiver.rotation.receiver_not_switched',
      'webhooks.receiver.rotation.receiver_switched',
    ]);
  }, 60_000);

  it('a receiver with no replay window fails the stale and the replay checks', async () => {
    expect(failedIds(await run(noReplayWindow()))).toEqual([
      'webhooks.receiver.refuses_replay',
      'webhooks.receiver.refuses_stale_timestamp',
    ]);
  }, 60_000);

  it('a receiver accepting any signature fails the wrong-signature, changed-body and retired-secret checks', async () => {
    expect(failedIds(await run(anySignature()))).toEqual([
      'webhooks.receiver.refuses_changed_body',
      'webhooks.receiver.refuses_wrong_signature',
      'webhooks.receiver.rotation.previous_after_grace',
    ]);
  }, 60_000);

  it('a receiver refusing every repeated delivery id fails the retry check, not the replay check', async () => {
    const seen = new Set<string>();
    const verify = correct();
    const byId: Verify = (raw, headers) => {
      const id = String(headers['x-svc-delivery']);
      if (seen.has(id)) return false;
      seen.add(id);
      return verify(raw, headers);
    };
    expect(failedIds(await run(byId))).toEqual(['webhooks.receiver.accepts_retry']);
  }, 60_000);
});

describe('svckit conformance --webhook-receiver', () => {
  const exec = promisify(execFile);
  const cli = (args: string[]) =>
    exec(process.execPath, [SVCKIT_BIN, 'conformance', ...args], { timeout: 120_000 }).then(
      (r) => ({ code: 0, out: r.stdout + r.stderr }),
      (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, out: e.stdout + e.stderr }),
    );

  it('runs the receiver-side checks alone against a receiver in this process; no secret is printed', async () => {
    const url = await serve(correct());
    const caFile = tls.caCertPath;
    const { code, out } = await cli([
      '--webhook-receiver',
      url,
      '--webhook-secret',
      SECRET,
      '--webhook-previous-secret',
      RETIRED,
      '--ca-cert',
      caFile,
    ]);
    expect(out).toContain('webhooks.receiver.refuses_replay');
    expect(out).not.toContain('institutional.');
    expect(out).not.toContain(SECRET);
    expect(out).not.toContain(RETIRED);
    expect(code).toBe(0);
  }, 120_000);

  it('refuses a plain-http receiver and a short secret with exit 2, without echoing the secret', async () => {
    const plain = await cli(['--webhook-receiver', 'http://127.0.0.1:9/', '--webhook-secret', SECRET]);
    expect(plain.code).toBe(2);
    expect(plain.out).toContain('expected an https URL');
    const short = await cli(['--webhook-receiver', 'https://127.0.0.1:9/', '--webhook-secret', 'tiny secret']);
    expect(short.code).toBe(2);
    expect(short.out).toContain('"--webhook-secret" expected 32 to 256 printable ASCII characters');
    expect(short.out).not.toContain('tiny secret');
  }, 120_000);
});
