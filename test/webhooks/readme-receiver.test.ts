// The README's webhook receiver, run as written in its own Node process over real TLS, fed deliveries signed by
// the dispatcher's own signing code: a captured delivery resent under a new X-SVC-Delivery is refused by its
// replay key and processed once, the sender's retry (a fresh signature of the same event) is acknowledged and
// not processed again, and a delivery with a wrong signature is a 400 (D-224).
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSpec } from '../../scripts/generate/spec-loader.ts';
import { freePort } from '../../src/node/anvil.ts';
import { REPO_ROOT } from '../../src/paths.ts';
import { ensureDevCertificates, type TlsMaterial } from '../../src/server/tls/dev-certificates.ts';
import { deliveryHeaders } from '../../src/webhooks/signature.ts';

const SECRET = 'readme-receiver-secret';
const readme = readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');
const sample = /<!-- webhook-receiver -->\n```ts\n([\s\S]*?)\n```\n/.exec(readme)?.[1];
const payload = (
  loadSpec('webhooks.asyncapi.yaml').components as {
    messages: Record<string, { examples: { payload: { uetr: string } }[] }>;
  }
).messages.paymentSettled!.examples[0]!.payload;
const body = JSON.stringify(payload);

let dir: string;
let tls: TlsMaterial;
let port: number;
let receiver: ChildProcess;
let stdout = '';

/** POSTs one delivery to the receiver; resolves with the status. */
function post(headers: Record<string, string>, raw = body): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, method: 'POST', path: '/', ca: tls.caCert, servername: 'localhost' },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode!));
      },
    );
    req.on('error', reject);
    req.setHeader('content-type', 'application/json; charset=utf-8');
    for (const [name, value] of Object.entries(headers)) req.setHeader(name, value);
    req.end(raw);
  });
}

const processedLines = () => stdout.split('\n').filter((line) => line.startsWith('processing '));

/**
 * Waits until the receiver has printed `count` processing lines: its stdout reaches this process on a pipe of
 * its own, which may trail the HTTP answer to the same delivery. Fails after 5 s, naming what arrived.
 */
async function processedCount(count: number): Promise<string[]> {
  const deadline = Date.now() + 5_000;
  while (processedLines().length < count && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  return processedLines();
}

beforeAll(async () => {
  expect(sample, 'README.md has a ```ts block after <!-- webhook-receiver -->').toBeDefined();
  dir = mkdtempSync(path.join(tmpdir(), 'svckit-readme-receiver-'));
  tls = await ensureDevCertificates(dir, []);
  port = await freePort();
  // As an integrator's file that imports @svckit/sdk; in a checkout, the repository's tsconfig maps the package to
  // its sources (D-229), which the compiled package is built from.
  const file = path.join(dir, 'receiver.ts');
  writeFileSync(file, sample!);
  receiver = spawn(process.execPath, [path.join(REPO_ROOT, 'node_modules/tsx/dist/cli.mjs'), file], {
    cwd: REPO_ROOT,
    env: {
      ...process.env,
      NODE_OPTIONS: '',
      TSX_TSCONFIG_PATH: path.join(REPO_ROOT, 'tsconfig.json'),
      WEBHOOK_SECRET: SECRET,
      TLS_CERT_FILE: path.join(dir, 'tls', 'server.pem'),
      TLS_KEY_FILE: path.join(dir, 'tls', 'server-key.pem'),
      PORT: String(port),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  receiver.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  receiver.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the receiver did not start: ${stderr.slice(-2000)}`)), 20_000);
    receiver.once('exit', (code) => reject(new Error(`the receiver exited (${code}): ${stderr.slice(-2000)}`)));
    receiver.stdout!.on('data', () => {
      if (stdout.includes('receiver ready\n')) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
}, 30_000);

afterAll(() => {
  receiver?.kill();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('the README webhook receiver', () => {
  it('processes an event once: a replay under a new delivery id is refused, a retry is acknowledged only', async () => {
    const deliveryId = randomUUID();
    const sign = (nowMs: number) =>
      deliveryHeaders({ deliveryId, event: 'payment.settled', body, secrets: [SECRET], nowMs });
    const captured = sign(Date.now());
    expect(await post(captured)).toBe(204);
    expect(await processedCount(1)).toEqual([`processing payment.settled of ${payload.uetr}`]);
    // A captured delivery, sent again under another (unsigned) delivery id: it verifies, and is refused.
    expect(await post({ ...captured, 'X-SVC-Delivery': randomUUID() })).toBe(409);
    expect(await post(captured)).toBe(409);
    // The sender's next attempt is signed afresh (30 s later): acknowledged, not processed again.
    expect(await post(sign(Date.now() + 30_000))).toBe(204);
    expect(await post({ ...captured, 'X-SVC-Signature': `sha256=${'0'.repeat(64)}` })).toBe(400);
    // Another event, sent last, is processed: once its line is here, a line of any earlier delivery would be too
    // (one pipe, in order), so the list shows that nothing above was processed twice.
    const other = JSON.stringify({ ...payload, uetr: randomUUID() });
    const otherHeaders = deliveryHeaders({
      deliveryId: randomUUID(),
      event: 'payment.settled',
      body: other,
      secrets: [SECRET],
      nowMs: Date.now(),
    });
    expect(await post(otherHeaders, other)).toBe(204);
    expect(await processedCount(2)).toEqual([
      `processing payment.settled of ${payload.uetr}`,
      `processing payment.settled of ${JSON.parse(other).uetr}`,
    ]);
  });
});
