// `svckit proxy` in front of a stand-in upstream that answers wrong on purpose (D-249): each wrong answer is
// reported with the generated check's id, a pointer and a value; the client still gets the upstream's answer,
// except with --strict; a body over the bound is forwarded whole and not judged (D-250).
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prepareHarReplay, readHarEntry } from '../../conformance/engine/openapi/har-replay.ts';
import { ProxyLedger } from '../../conformance/proxy/ledger.ts';
import { harWriter, writeProxyReports } from '../../conformance/proxy/reports.ts';
import { type RunningProxy, startProxy } from '../../conformance/proxy/server.ts';
import { remoteTarget } from '../../conformance/targets/remote.ts';
import { SPECS_DIR } from '../../src/paths.ts';

type Line = Record<string, unknown>;

/** What the stand-in answers, chosen by the test per request (x-standin header). */
const ANSWERS: Record<string, { status: number; type?: string; body: string }> = {
  valid: { status: 200, body: '{"blockNumber":5,"avgBlockTime":"2.00"}' },
  missing: { status: 200, body: '{"blockNumber":5}' },
  'wrong-type': { status: 200, body: '{"blockNumber":"5","avgBlockTime":"2.00"}' },
  'other-500': { status: 500, type: 'text/plain', body: 'upstream exploded' },
  'shape-500': { status: 500, body: '{"message":"boom"}' },
  'leak-500': { status: 500, type: 'text/plain', body: 'failed for svc_abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG' },
  large: { status: 200, body: JSON.stringify({ blockNumber: 5, avgBlockTime: '2.00', pad: 'x'.repeat(4000) }) },
  rpc: {
    status: 200,
    body: '[{"jsonrpc":"2.0","id":1,"result":"0x5"},{"jsonrpc":"2.0","id":2,"error":{"code":"oops","message":"no"}}]',
  },
};

let upstream: http.Server;
let proxy: RunningProxy;
let strict: RunningProxy;
const lines: Line[] = [];
const ledger = new ProxyLedger((text) => lines.push(JSON.parse(text) as Line));
const dir = mkdtempSync(path.join(tmpdir(), 'svckit-proxy-'));
const har = harWriter(path.join(dir, 'traffic.har'), 'test');
const upstreamRequests: { url: string; body: string }[] = [];

async function send(
  base: string,
  pathname: string,
  answer: string,
  init: { method?: string; body?: string } = {},
): Promise<{ status: number; headers: Headers; text: string }> {
  const res = await fetch(`${base}${pathname}`, {
    method: init.method ?? 'GET',
    headers: { 'x-standin': answer, ...(init.body ? { 'content-type': 'application/json' } : {}) },
    ...(init.body ? { body: init.body } : {}),
  });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

/** The violation lines of exchange `n`. */
const quietLines: Line[] = [];
const quietLedger = new ProxyLedger((text) => quietLines.push(JSON.parse(text) as Line));
let headerless: RunningProxy;
const violationsOf = (n: number) => lines.filter((l) => l.n === n && typeof l.check === 'string');

beforeAll(async () => {
  upstream = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      upstreamRequests.push({ url: req.url ?? '', body: Buffer.concat(chunks).toString('utf8') });
      if (req.headers['x-standin'] === 'hang-up') {
        req.socket.destroy();
        return;
      }
      const a = ANSWERS[String(req.headers['x-standin'])] ?? ANSWERS.valid;
      if (!a) throw new Error('no answer');
      res.writeHead(a.status, { 'content-type': a.type ?? 'application/json' });
      res.end(a.body);
    });
  });
  // A WebSocket-like upgrade: 101, then every byte echoed back.
  upstream.on('upgrade', (req, socket) => {
    socket.write(
      `HTTP/1.1 101 Switching Protocols\r\nupgrade: echo\r\nconnection: Upgrade\r\nx-path: ${req.url}\r\n\r\n`,
    );
    socket.pipe(socket);
  });
  upstream.listen(0, '127.0.0.1');
  await once(upstream, 'listening');
  const url = new URL(`http://127.0.0.1:${(upstream.address() as AddressInfo).port}/`);
  const common = {
    upstreams: { base: url },
    ports: { base: 0 },
    host: '127.0.0.1',
    violationsHeader: true,
    bodyBound: 1024,
    holdBudget: 64 * 1024,
    timeoutMs: 5_000,
    specsDir: SPECS_DIR,
  };
  proxy = await startProxy({ ...common, strict: false, ledger, onExchange: har.add });
  strict = await startProxy({ ...common, strict: true, ledger: new ProxyLedger(() => {}) });
  headerless = await startProxy({ ...common, violationsHeader: false, strict: false, ledger: quietLedger });
});

afterAll(async () => {
  await proxy?.close();
  await strict?.close();
  await headerless?.close();
  upstream?.close();
  har.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('svckit proxy in front of a stand-in upstream', () => {
  it('passes a valid answer through with 0 violations', async () => {
    const res = await send(proxy.urls.base as string, '/api/stats', 'valid');
    expect(res.status).toBe(200);
    expect(res.headers.get('x-svckit-violations')).toBe('0');
    expect(JSON.parse(res.text)).toEqual({ blockNumber: 5, avgBlockTime: '2.00' });
  });

  it('reports a missing required field at its pointer, and the client still gets the answer', async () => {
    const before = ledger.counts.exchanges;
    const res = await send(proxy.urls.base as string, '/api/stats', 'missing');
    expect(res.status).toBe(200);
    expect(res.text).toBe(ANSWERS.missing?.body);
    expect(res.headers.get('x-svckit-violations')).toBe('1');
    expect(violationsOf(before + 1)).toEqual([
      expect.objectContaining({
        check: 'generated.response_schema_conformance',
        operation: 'explorer GET /stats',
        pointer: '/body/avgBlockTime',
      }),
    ]);
  });

  it('without the violations header answers first and still judges the exchange (D-263)', async () => {
    const res = await send(headerless.urls.base as string, '/api/stats', 'missing');
    expect(res.status).toBe(200);
    expect(res.text).toBe(ANSWERS.missing?.body);
    expect(res.headers.get('x-svckit-violations')).toBeNull();
    await expect
      .poll(() => quietLines.filter((l) => l.check === 'generated.response_schema_conformance'))
      .toEqual([expect.objectContaining({ operation: 'explorer GET /stats', pointer: '/body/avgBlockTime' })]);
    expect(quietLedger.counts.exchanges).toBe(1);
  });

  it('reports a wrong type with the value found', async () => {
    const before = ledger.counts.exchanges;
    await send(proxy.urls.base as string, '/api/stats', 'wrong-type');
    expect(violationsOf(before + 1)).toEqual([
      expect.objectContaining({
        check: 'generated.response_schema_conformance',
        pointer: '/body/blockNumber',
        value: '"5"',
      }),
    ]);
  });

  it('reports a 500 in another shape: a server error, its content type and the error shape', async () => {
    const before = ledger.counts.exchanges;
    const res = await send(proxy.urls.base as string, '/api/stats', 'other-500');
    expect(res.status).toBe(500);
    expect(res.text).toBe('upstream exploded');
    const checks = violationsOf(before + 1).map((l) => l.check);
    expect(checks).toEqual(
      expect.arrayContaining([
        'generated.not_a_server_error',
        'generated.content_type_conformance',
        'generated.error_shape_conformance',
      ]),
    );
    expect(res.headers.get('x-svckit-violations')).toBe(String(checks.length));
    const shape = await send(proxy.urls.base as string, '/api/stats', 'shape-500');
    expect(violationsOf(before + 2)).toContainEqual(
      expect.objectContaining({ check: 'generated.error_shape_conformance', pointer: '/body/error' }),
    );
    expect(shape.status).toBe(500);
  });

  it('answers 502 when the upstream gives no answer, and reports it as not_a_server_error with status 0', async () => {
    const before = ledger.counts.exchanges;
    const res = await send(proxy.urls.base as string, '/api/stats', 'hang-up');
    expect(res.status).toBe(502);
    expect(JSON.parse(res.text)).toEqual({ error: expect.stringContaining('upstream gave no answer') });
    expect(violationsOf(before + 1)).toEqual([
      expect.objectContaining({ check: 'generated.not_a_server_error', status: 0, pointer: '/status' }),
    ]);
  });

  it('keeps an API key in an answer out of its violation lines', async () => {
    const before = ledger.counts.exchanges;
    await send(proxy.urls.base as string, '/api/stats', 'leak-500');
    const found = violationsOf(before + 1);
    expect(found.map((l) => l.check)).toContain('generated.not_a_server_error');
    expect(JSON.stringify(found)).not.toContain('svc_abcdefgh');
    expect(JSON.stringify(found)).toContain('svc_[redacted]');
  });

  it('reports a JSON-RPC error with a non-integer code in a batch, at that call', async () => {
    const before = ledger.counts.exchanges;
    const batch = [
      { jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] },
      { jsonrpc: '2.0', id: 2, method: 'eth_chainId', params: [] },
    ];
    const res = await send(proxy.urls.base as string, '/rpc', 'rpc', { method: 'POST', body: JSON.stringify(batch) });
    expect(res.status).toBe(200);
    expect(res.text).toBe(ANSWERS.rpc?.body);
    const found = violationsOf(before + 1);
    expect(found).toContainEqual(
      expect.objectContaining({
        check: 'generated.jsonrpc_error_codes',
        operation: 'chain eth_chainId',
        pointer: '/body/1/error/code',
        value: '"oops"',
      }),
    );
    expect(found.every((l) => l.operation === 'chain eth_chainId')).toBe(true);
  });

  it("reports the client's mistake apart, and the upstream that accepts it by negative_data_rejection", async () => {
    const before = ledger.counts.exchanges;
    const mistakes = ledger.counts.clientMistakes;
    await send(proxy.urls.base as string, '/api/block/not-a-block', 'valid');
    expect(ledger.counts.clientMistakes).toBe(mistakes + 1);
    expect(lines).toContainEqual(
      expect.objectContaining({
        side: 'client',
        n: before + 1,
        operation: 'explorer GET /block/{id}',
        pointer: '/path/id',
      }),
    );
    expect(violationsOf(before + 1).map((l) => l.check)).toContain('generated.negative_data_rejection');
  });

  it('passes an upgrade (/ws) through byte for byte, not judged', async () => {
    const before = ledger.counts.exchanges;
    const req = http.request(`${proxy.urls.base}/ws?x=1`, { headers: { connection: 'Upgrade', upgrade: 'echo' } });
    req.end();
    const [res, socket] = (await once(req, 'upgrade')) as [http.IncomingMessage, Socket];
    expect(res.statusCode).toBe(101);
    expect(res.headers['x-path']).toBe('/ws?x=1');
    socket.write('ping');
    const [echo] = (await once(socket, 'data')) as [Buffer];
    expect(echo.toString()).toBe('ping');
    socket.destroy();
    expect(ledger.counts.exchanges).toBe(before);
  });

  it('forwards the request body unchanged', async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'eth_blockNumber', params: [] });
    await send(proxy.urls.base as string, '/rpc?x=1', 'valid', { method: 'POST', body });
    expect(upstreamRequests.at(-1)).toEqual({ url: '/rpc?x=1', body });
    // Past the bound (1 KiB here) the body still goes on whole; its copy is cut and not judged.
    const large = JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'eth_blockNumber', params: ['x'.repeat(3000)] });
    const mistakes = ledger.counts.clientMistakes;
    await send(proxy.urls.base as string, '/rpc', 'valid', { method: 'POST', body: large });
    expect(upstreamRequests.at(-1)).toEqual({ url: '/rpc', body: large });
    expect(ledger.counts.clientMistakes).toBe(mistakes);
  });

  it('forwards a body over the bound whole, and says it was not judged', async () => {
    const res = await send(proxy.urls.base as string, '/api/stats', 'large');
    expect(res.text).toBe(ANSWERS.large?.body);
    expect(res.headers.get('x-svckit-violations')).toBe('not-judged');
    expect(lines.at(-1)).toEqual(expect.objectContaining({ side: 'proxy', notJudged: expect.any(String) }));
  });

  it('with --strict answers 502 with the violation instead of the invalid answer, and passes a valid one', async () => {
    const bad = await send(strict.urls.base as string, '/api/stats', 'missing');
    expect(bad.status).toBe(502);
    const body = JSON.parse(bad.text) as { error: string; violations: Line[] };
    expect(body.violations).toEqual([
      expect.objectContaining({ check: 'generated.response_schema_conformance', pointer: '/body/avgBlockTime' }),
    ]);
    const good = await send(strict.urls.base as string, '/api/stats', 'valid');
    expect(good.status).toBe(200);
  });

  it('writes the reports with coverage, and a HAR whose entries svckit replay accepts', async () => {
    const out = path.join(dir, 'reports');
    const target = remoteTarget({ base: proxy.urls.base as string });
    const { report, written } = await writeProxyReports(ledger, {
      target,
      command: 'svckit proxy --upstream …',
      upstream: 'http://127.0.0.1:1/',
      formats: ['json', 'junit', 'html'],
      outDir: out,
      interrupted: false,
    });
    expect(written.map((p) => path.basename(p))).toEqual(
      expect.arrayContaining(['conformance.json', 'conformance.junit.xml', 'conformance.html']),
    );
    const schema = report.checks.find((c) => c.id === 'generated.response_schema_conformance');
    expect(schema?.status).toBe('failed');
    expect(schema?.cases?.bySurface.explorer?.failed).toBeGreaterThanOrEqual(2);
    expect(report.surfaces.explorer?.coverage?.operations.covered).toBeGreaterThanOrEqual(1);
    expect(report.surfaces.chain?.coverage?.operations.covered).toBeGreaterThanOrEqual(1);
    const junit = readFileSync(path.join(out, 'conformance.junit.xml'), 'utf8');
    expect(junit).toContain('generated.jsonrpc_error_codes');
    const entry = readHarEntry(path.join(dir, 'traffic.har'), 2);
    const prepared = prepareHarReplay(entry, { base: new URL('https://deployment.example/') });
    expect(prepared.operation).toBe('explorer GET /stats');
    expect(prepared.recordedStatus).toBe(200);
  });
});
