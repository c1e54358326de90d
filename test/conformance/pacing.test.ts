// The harness's HTTP layer in a run (D-180, D-234) against a real local HTTPS server that enforces a limit: 429
// with Retry-After and JSON-RPC -32005 inside a 429 are waited out and sent again, a bounded number of times, each
// retry noted with the running check; -32005 outside a 429 (an oversized batch) is an answer; --rate paces one
// origin. And the runner's deadline (D-181) fails a check that waits too long, naming what it waited for.
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Catalogue } from '../../conformance/catalogue.ts';
import { PROBE_LIMIT, request } from '../../conformance/http.ts';
import { Pacer, type PacingOptions } from '../../conformance/pacing.ts';
import { withActivity, type Activity } from '../../conformance/progress.ts';
import { withRunScope } from '../../conformance/run-scope.ts';
import { runChecks } from '../../conformance/runner.ts';
import type { Target } from '../../conformance/targets/target.ts';
import { ensureDevCertificates } from '../../src/server/tls/dev-certificates.ts';

type Handler = (
  req: import('node:http').IncomingMessage,
  res: import('node:http').ServerResponse,
  body: string,
) => void;

const dir = mkdtempSync(path.join(tmpdir(), 'svckit-pacing-'));
let server: https.Server;
let handler: Handler;
let arrivals: number[] = [];
let target: Target;

beforeAll(async () => {
  const tls = await ensureDevCertificates(dir, ['127.0.0.1']);
  server = https.createServer({ cert: tls.cert, key: tls.key }, (req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (c: string) => (body += c));
    req.on('end', () => {
      arrivals.push(Date.now());
      handler(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  target = {
    kind: 'remote',
    base: new URL(`https://127.0.0.1:${port}/`),
    caCert: tls.caCert,
    capabilities: new Set(['base']),
  };
});

afterEach(() => {
  arrivals = [];
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

const activity = (): Activity => ({
  name: 'test',
  waitingFor: undefined,
  retries: [],
  signal: new AbortController().signal,
});
/** Runs `fn` as the check `a` of a run paced by `options`. */
const inRun = <T>(a: Activity, fn: () => Promise<T>, options: PacingOptions = {}) =>
  withRunScope({ pacer: new Pacer(options) }, () => withActivity(a, fn));
const json = (res: import('node:http').ServerResponse, status: number, body: unknown, headers = {}) =>
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));

describe('rate-limit answers', () => {
  it('waits out a 429 for its Retry-After and sends the request again, noting the retry', async () => {
    let n = 0;
    handler = (_req, res) =>
      ++n === 1 ? json(res, 429, { error: 'slow down' }, { 'retry-after': '1' }) : json(res, 200, { ok: true });
    const a = activity();
    const res = await inRun(a, () => request(target, 'api/stats'));
    expect(res.status).toBe(200);
    expect(arrivals).toHaveLength(2);
    expect(arrivals[1]! - arrivals[0]!).toBeGreaterThanOrEqual(950);
    expect(a.retries).toEqual(['GET /api/stats: HTTP 429; retry 1 after 1000 ms']);
  });

  it('reads JSON-RPC -32005 with its data inside a 429 as a limit, and -32005 in a 200 as an answer', async () => {
    let n = 0;
    const limit = {
      jsonrpc: '2.0',
      id: null,
      error: { code: -32005, message: 'limit exceeded', data: '100 requests per second per IP' },
    };
    handler = (_req, res) =>
      ++n === 1
        ? json(res, 429, limit, { 'retry-after': '1' })
        : json(res, 200, { ...limit, error: { code: -32005, message: 'limit exceeded' } });
    const a = activity();
    const res = await inRun(a, () =>
      request(target, 'rpc', { body: [{ jsonrpc: '2.0', id: 1, method: 'eth_chainId' }] }),
    );
    expect(res.status).toBe(200);
    expect(arrivals).toHaveLength(2);
    expect(a.retries[0]).toBe(
      'POST /rpc: HTTP 429, JSON-RPC -32005 ("100 requests per second per IP"); retry 1 after 1000 ms',
    );
  });

  it('gives up after the bounded number of retries and returns the 429', async () => {
    handler = (_req, res) => json(res, 429, { error: 'no' }, { 'retry-after': '0' });
    const a = activity();
    const res = await inRun(a, () => request(target, 'api/x'), { maxRetries: 2, rate: 100 });
    expect(res.status).toBe(429);
    expect(arrivals).toHaveLength(3);
    expect(a.retries.at(-1)).toBe('GET /api/x: HTTP 429; gave up after 2 retries');
  });

  it('gives up at once on a Retry-After beyond the longest wait, and holds nothing else to the origin (D-252)', async () => {
    // A quota (e-mail codes per hour) answers with a Retry-After of 25 minutes: waiting it out 30 s at a time
    // would hold every request to the origin; the answer is returned at once and the next request goes.
    handler = (req, res) =>
      req.url === '/api/quota' ? json(res, 429, { error: 'quota' }, { 'retry-after': '1508' }) : json(res, 200, {});
    const a = activity();
    const started = Date.now();
    const [limited, other] = await inRun(a, () =>
      Promise.all([request(target, 'api/quota'), request(target, 'api/other')]),
    );
    expect(limited.status).toBe(429);
    expect(other.status).toBe(200);
    expect(arrivals).toHaveLength(2);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(a.retries).toEqual([
      'GET /api/quota: HTTP 429; gave up at once: Retry-After 1508 s is beyond the longest wait of 30 s',
    ]);
  });

  it('returns a 429 as it is to a check that probes the limit itself', async () => {
    handler = (_req, res) => json(res, 429, { error: 'no' }, { 'retry-after': '1' });
    const res = await inRun(activity(), () => request(target, 'api/x', PROBE_LIMIT));
    expect(res.status).toBe(429);
    expect(arrivals).toHaveLength(1);
  });

  it('returns a 429 as it is outside a run (the library pacer neither paces nor resends)', async () => {
    handler = (_req, res) => json(res, 429, { error: 'no' }, { 'retry-after': '1' });
    const res = await request(target, 'api/x');
    expect(res.status).toBe(429);
    expect(arrivals).toHaveLength(1);
  });
});

describe('--rate', () => {
  it('spaces requests to one origin to the rate, a batch counting one per entry', async () => {
    handler = (_req, res) => json(res, 200, {});
    // The bucket starts full (4 tokens): 4 single requests pass at once, then a 2-entry batch waits 0.5 s for
    // its tokens and the next single request 0.25 s more.
    const t0 = Date.now();
    let burst = 0;
    await inRun(
      activity(),
      async () => {
        await Promise.all(Array.from({ length: 4 }, () => request(target, 'api/x')));
        burst = Date.now() - t0;
        await request(target, 'rpc', { body: [{}, {}] });
        await request(target, 'api/x');
      },
      { rate: 4 },
    );
    expect(arrivals).toHaveLength(6);
    expect(burst).toBeLessThan(700);
    expect(arrivals[4]! - t0).toBeGreaterThanOrEqual(490);
    expect(arrivals[5]! - t0).toBeGreaterThanOrEqual(740);
  });

  it('refuses a rate that is not a positive number', () => {
    expect(() => new Pacer({ rate: 0 })).toThrow(/positive number/);
  });
});

describe('check deadlines', () => {
  it('fails a check whose request outlives its deadline, naming the request, and aborts it', async () => {
    const held: import('node:http').ServerResponse[] = [];
    handler = (_req, res) => held.push(res);
    const catalogue = new Catalogue();
    catalogue.register({
      id: 'explorer.slow.answer',
      title: 'waits for a slow answer',
      surface: 'D',
      source: { decision: 'D-181' },
      severity: 'SHOULD',
      needs: ['base'],
      deadlineMs: 60_000,
      run: async (ctx) => {
        await request(ctx.target, 'api/slow');
        return { status: 'passed' };
      },
    });
    const started = Date.now();
    const [result] = await runChecks(catalogue, target, { deadlineMs: 700 });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(result).toMatchObject({
      status: 'failed',
      reason: 'deadline of 0.7 s passed while waiting for an answer to GET /api/slow',
    });
    // The harness aborts the request at the deadline: the server sees its connection go, soon after.
    await expect
      .poll(() => held[0]?.destroyed || held[0]?.socket?.destroyed || held[0]?.req.destroyed, {
        timeout: 5_000,
        interval: 10,
      })
      .toBe(true);
    for (const res of held) res.destroy();
  });
});
