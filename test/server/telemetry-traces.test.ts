// D-265..D-268: with OTEL_EXPORTER_OTLP_ENDPOINT set, one transfer is traced end to end and the spans reach an
// OTLP/HTTP receiver: the request that stores it, its database group, its node calls, its life span to
// confirmation, and the webhook attempts of its payment events, whose receiver sees a `traceparent` of that trace.
// Real stack (TLS, PGlite, Anvil), a real HTTPS webhook receiver and a plain node:http OTLP receiver in this process.
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiKey, newAccount } from '../../conformance/checks/institutional/support.ts';
import { admin, eventually, wallet } from '../admin/support.ts';
import { LIFTED_LIMITS, startTestStack, type TestStack } from '../support/stack.ts';

type OtlpValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean };
type OtlpSpan = {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: { key: string; value: OtlpValue }[];
  links?: { traceId: string; spanId: string }[];
};
type Span = {
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  attrs: Record<string, unknown>;
};

const spans: Span[] = [];
const hooks: { event: string; traceparent: string | undefined; body: { txRef?: string; onChainTxHash?: string } }[] =
  [];
let otlp: http.Server;
let receiver: https.Server;
let running: TestStack;

const attributeValue = (v: OtlpValue) => v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : v.boolValue);

beforeAll(async () => {
  otlp = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      expect(req.url).toBe('/v1/traces');
      expect(req.headers['content-type']).toMatch(/json/);
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        resourceSpans: { resource: unknown; scopeSpans: { spans: OtlpSpan[] }[] }[];
      };
      for (const resource of body.resourceSpans)
        for (const scope of resource.scopeSpans)
          for (const s of scope.spans)
            spans.push({
              traceId: s.traceId,
              spanId: s.spanId,
              parentSpanId: s.parentSpanId || undefined,
              name: s.name,
              attrs: Object.fromEntries(s.attributes.map((a) => [a.key, attributeValue(a.value)])),
            });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => otlp.listen(0, '127.0.0.1', resolve));
  const otlpUrl = `http://127.0.0.1:${(otlp.address() as AddressInfo).port}`;
  running = await startTestStack({
    env: { ...LIFTED_LIMITS, OTEL_EXPORTER_OTLP_ENDPOINT: otlpUrl, SVC_WEBHOOK_ALLOW_PRIVATE: 'true' },
  });
  // A receiver on this machine may use the development server certificate (D-102).
  receiver = https.createServer({ cert: running.stack.tls.cert, key: running.stack.tls.key }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      hooks.push({
        event: String(req.headers['x-svc-event']),
        traceparent: req.headers.traceparent as string | undefined,
        body: JSON.parse(Buffer.concat(chunks).toString('utf8')),
      });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
}, 120_000);

afterAll(async () => {
  await running?.close();
  receiver?.close();
  otlp?.close();
});

describe('traces (D-265..D-268)', () => {
  it('carry one transfer from its request to its webhook receiver in one trace', async () => {
    const { target } = running;
    const [debtor, creditor] = [await newAccount(target, { fund: '10' }), await newAccount(target)];
    const endpoint = (
      await admin(target, 'POST', '/webhooks/endpoints', {
        url: `https://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`,
        accountIds: [debtor.id],
      })
    ).json as { id: string };
    await admin(target, 'PUT', `/webhooks/endpoints/${endpoint.id}/secret`, {
      secret: 'whsec_JFGTla5bYScCb4aK2IvnRRiBIk5TAru2IYOc7uStGFU',
    });
    const key = await apiKey(target, ['transfers:write', 'transfers:read']);
    const sent = await wallet(target, 'POST', '/transfers', key, {
      fromAccountId: debtor.id,
      to: creditor.address,
      amount: '1.25',
    });
    expect(sent.status).toBe(201);
    const { txRef, txHash } = sent.json as { txRef: string; txHash: string };
    const requestId = sent.headers['x-request-id'];
    expect(requestId).toMatch(/^[0-9a-f-]{36}$/);

    // 60 s: a failed attempt is made again 30 s later (RETRY_DELAYS_MS), in the same trace.
    const settled = await eventually(
      async () => hooks.find((h) => h.event === 'payment.settled' && h.body.onChainTxHash === txHash),
      60_000,
    ).catch(async (error: Error) => {
      // What the stack did instead, so a failure names its cause: the transfer, and each delivery's attempts.
      const transfer = await wallet(target, 'GET', `/transfers/${txRef}`, key);
      const deliveries = await admin(target, 'GET', `/webhooks/deliveries?endpointId=${endpoint.id}`);
      const seen = hooks.map((h) => `${h.event} ${h.body.onChainTxHash ?? h.body.txRef}`);
      throw new Error(
        `${error.message}; receiver saw ${JSON.stringify(seen)}; sent ${txHash}; transfer ${JSON.stringify(transfer.json)}; deliveries ${JSON.stringify(deliveries.json)}`,
      );
    });
    const initiated = hooks.find((h) => h.event === 'payment.initiated' && h.body.txRef === settled.body.txRef);
    expect(initiated).toBeDefined();
    await running.stack.tracing!.flush();

    // The transfer's life span, to confirmation, carrying its reference.
    const life = await eventually(async () =>
      spans.find((s) => s.name === 'transfer' && s.attrs['svckit.transfer.reference'] === txRef),
    );
    expect(life.attrs['svckit.transfer.outcome']).toBe('confirmed');
    expect(life.attrs['svckit.transfer.tx_hash']).toBe(txHash);
    // An attempt's span ends once its answer is recorded, which may be after the receiver saw the delivery.
    await eventually(async () => {
      await running.stack.tracing!.flush();
      const ended = spans.filter((s) => s.name === 'webhook POST' && s.parentSpanId === life.spanId);
      return ended.length >= 2 ? ended : undefined;
    });
    const trace = spans.filter((s) => s.traceId === life.traceId);
    const byId = new Map(trace.map((s) => [s.spanId, s]));

    // Its parent is the server span of the request that created it, named by method and route template.
    const request = byId.get(life.parentSpanId!)!;
    expect(request.name).toBe('POST /wallet/api/v1/transfers');
    expect(request.attrs).toMatchObject({
      'http.route': '/wallet/api/v1/transfers',
      'http.response.status_code': 201,
      'svckit.request_id': requestId,
    });
    expect(request.parentSpanId).toBeUndefined();
    const underRequest = (s: Span) => {
      for (let at: Span | undefined = s; at; at = at.parentSpanId ? byId.get(at.parentSpanId) : undefined)
        if (at === request) return true;
      return false;
    };
    // The database group and the node calls of the request.
    const store = trace.find((s) => s.name === 'db transfer.store');
    expect(store && underRequest(store)).toBe(true);
    const broadcast = trace.find((s) => s.name === 'jsonrpc eth_sendRawTransaction');
    expect(broadcast && underRequest(broadcast)).toBe(true);
    expect(broadcast!.attrs['rpc.system']).toBe('jsonrpc');
    expect(trace.some((s) => s.name === 'jsonrpc batch' && underRequest(s))).toBe(true);

    // The webhook attempts are children of the life span, and each receiver saw its own attempt's traceparent.
    const attempts = trace.filter((s) => s.name === 'webhook POST' && s.parentSpanId === life.spanId);
    expect([...new Set(attempts.map((s) => s.attrs['svckit.webhook.event']))].sort()).toEqual([
      'payment.initiated',
      'payment.settled',
    ]);
    for (const hook of [initiated!, settled]) {
      const [, traceId, spanId] = /^00-([0-9a-f]{32})-([0-9a-f]{16})-0[01]$/.exec(hook.traceparent ?? '') ?? [];
      expect(traceId).toBe(life.traceId);
      const attempt = byId.get(spanId!);
      expect(attempt?.name).toBe('webhook POST');
      expect(attempt?.attrs['svckit.webhook.event']).toBe(hook.event);
      expect(attempt?.attrs['http.response.status_code']).toBe(200);
    }
  }, 120_000);

  it('answer every request with an X-Request-Id, keeping a well-formed one the caller sent', async () => {
    const get = (path: string, headers: Record<string, string> = {}) =>
      new Promise<http.IncomingMessage>((resolve, reject) => {
        const url = new URL(path, running.target.base);
        https
          .get(url, { ca: running.stack.tls.caCert, headers }, (res) => {
            res.resume();
            resolve(res);
          })
          .on('error', reject);
      });
    expect((await get('admin/v1/health', { 'x-request-id': 'lb-7f3a.01' })).headers['x-request-id']).toBe('lb-7f3a.01');
    const refused = (await get('admin/v1/health', { 'x-request-id': 'bad id\twith spaces' })).headers['x-request-id'];
    expect(refused).toMatch(/^[0-9a-f-]{36}$/);
    const long = (await get('admin/v1/health', { 'x-request-id': 'a'.repeat(129) })).headers['x-request-id'];
    expect(long).toMatch(/^[0-9a-f-]{36}$/);
    expect((await get('no/such/route')).headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect((await get('%E0%A4%A')).headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });
});
