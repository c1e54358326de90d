// GET {base_url}/metrics (D-276..D-280) on an in-process reference stack over real HTTPS, with real Anvil and
// a real HTTPS webhook receiver: who may scrape, values that move with transfers, deliveries and /rpc calls,
// and label values that stay in fixed sets whatever the requests were.
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiKey, newAccount } from '../../conformance/checks/institutional/support.ts';
import { PROBE_LIMIT, request, rpc } from '../../conformance/http.ts';
import type { Target } from '../../conformance/targets/target.ts';
import { WebhookReceiver } from '../../conformance/webhooks/receiver.ts';
import { receiverTls } from '../../conformance/webhooks/receiver-tls.ts';
import {
  COLLECT_SOURCES,
  DEPENDENCIES,
  HTTP_METHODS,
  OTHER,
  SURFACES,
  UNMATCHED,
  UPSTREAM_ERROR_KINDS,
  type OriginName,
} from '../../src/server/metrics/registry.ts';
import { knownCode } from '../../src/server/metrics/rpc.ts';
import type { Stack } from '../../src/server/app.ts';
import { admin, eventually, expectContract, wallet } from '../admin/support.ts';
import { LIFTED_LIMITS, startTestStack, type TestStack } from '../support/stack.ts';
import { closed, issueApiKey, nextFrame, openWithToken } from '../chain/ws/support.ts';
import { parsePrometheus, total, type Sample } from './prometheus-text.ts';

let started: TestStack;
let stack: Stack;
let target: Target;
let receiver: WebhookReceiver;

beforeAll(async () => {
  const tls = await receiverTls();
  const caFile = path.join(mkdtempSync(path.join(tmpdir(), 'svckit-metrics-ca-')), 'receiver-ca.pem');
  writeFileSync(caFile, tls.caCert);
  started = await startTestStack({
    env: {
      ...LIFTED_LIMITS,
      SVC_WEBHOOK_ALLOW_PRIVATE: 'true',
      SVC_WEBHOOK_CA_FILE: caFile,
      // The site origin keeps a low limit, so that its refusals can be counted; the evidence document is the test's.
      SVC_RATE_LIMIT_SITE: '3',
      SVC_EVIDENCE_AT_START: 'false',
    },
  });
  stack = started.stack;
  target = started.target;
  receiver = await WebhookReceiver.start({ tls, clock: () => Date.now() });
});

afterAll(async () => {
  await receiver?.close();
  await started?.close();
});

/** GET /metrics with `authorization` (default: the admin token). */
function scrapeAs(authorization: string | null = `Bearer ${target.adminToken!}`) {
  return request(target, 'metrics', { headers: authorization === null ? {} : { authorization } });
}

async function scrape(): Promise<Sample[]> {
  const res = await scrapeAs();
  expect(res.status, res.text.slice(0, 300)).toBe(200);
  return parsePrometheus(res.text);
}

describe('who may scrape /metrics (D-280)', () => {
  it('answers 401 in the {error, code} shape without a credential, with a wrong one and with an API key', async () => {
    const key = await apiKey(target, ['transfers:read']);
    for (const authorization of [
      null,
      'Bearer svcmet_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
      `Bearer svcadm_${randomBytes(32).toString('base64url')}`,
      `Bearer ${key}`,
      'Basic dXNlcjpwYXNz',
    ]) {
      const res = await scrapeAs(authorization);
      expect(res.status, String(authorization)).toBe(401);
      expect(res.json).toMatchObject({ code: 'UNAUTHENTICATED', error: expect.any(String) });
      expect(res.text).not.toContain('svckit_http_request_duration_seconds');
    }
  });

  it('serves the text format to the admin token', async () => {
    const res = await scrapeAs();
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(parsePrometheus(res.text).length).toBeGreaterThan(0);
  });

  it('serves a metrics token the administrator issued, which grants nothing else and ends when reissued', async () => {
    const issued = await admin(target, 'POST', '/metrics-token');
    await expectContract('admin.openapi.yaml', 'POST /metrics-token', issued, 200);
    expect(issued.headers['cache-control']).toBe('no-store');
    const { token } = issued.json as { token: string };
    expect(token).toMatch(/^svcmet_[A-Za-z0-9_-]{43}$/);
    expect((await scrapeAs(`Bearer ${token}`)).status).toBe(200);
    // Read-only: the admin API refuses it, including the operation that issues it.
    for (const [method, route] of [
      ['GET', '/accounts'],
      ['POST', '/metrics-token'],
    ] as const) {
      const refused = await admin(target, method, route, undefined, `Bearer ${token}`);
      expect(refused.status, `${method} ${route}`).toBe(401);
      expect(refused.json).toMatchObject({ code: 'UNAUTHENTICATED' });
    }
    const again = (await admin(target, 'POST', '/metrics-token')).json as { token: string };
    expect(again.token).not.toBe(token);
    expect((await scrapeAs(`Bearer ${token}`)).status).toBe(401);
    expect((await scrapeAs(`Bearer ${again.token}`)).status).toBe(200);
  });
});

describe('values move with what the stack does', () => {
  it('counts a transfer, its HTTP request, its webhook delivery and /rpc calls', async () => {
    const [debtor, creditor] = [await newAccount(target, { fund: '10' }), await newAccount(target)];
    const hookPath = `/hooks/metrics-${randomUUID()}`;
    const created = await admin(target, 'POST', '/webhooks/endpoints', {
      url: receiver.url(hookPath),
      accountIds: [debtor.id],
    });
    expect(created.status).toBe(201);
    const endpointId = (created.json as { id: string }).id;
    await admin(target, 'PUT', `/webhooks/endpoints/${endpointId}/secret`, {
      secret: 'whsec_JFGTla5bYScCb4aK2IvnRRiBIk5TAru2IYOc7uStGFU',
    });
    const key = await apiKey(target, ['transfers:write', 'transfers:read']);
    const before = await scrape();

    const sent = await wallet(target, 'POST', '/transfers', key, {
      fromAccountId: debtor.id,
      to: creditor.address,
      amount: '1.25',
    });
    expect(sent.status).toBe(201);
    await eventually(async () => (receiver.deliveries(hookPath).length > 0 ? true : undefined));
    await eventually(async () => {
      const page = (await admin(target, 'GET', `/webhooks/deliveries?endpointId=${endpointId}`)).json as {
        deliveries: { status: string }[];
      };
      return page.deliveries.some((d) => d.status === 'delivered') ? true : undefined;
    });
    expect((await rpc(target, 'eth_blockNumber')).status).toBe(200);
    expect((await rpc(target, 'no_suchMethod')).status).toBe(200);
    const after = await scrape();

    const moved = (name: string, labels: Record<string, string> = {}) =>
      total(after, name, labels) - total(before, name, labels);
    expect(moved('svckit_transfers')).toBe(1);
    const post = { origin: 'base', route: '/wallet/api/v1/transfers', method: 'POST', status: '201' };
    expect(moved('svckit_http_request_duration_seconds_count', post)).toBe(1);
    expect(moved('svckit_http_request_duration_seconds_sum', post)).toBeGreaterThan(0);
    expect(moved('svckit_webhook_attempts_total', { attempt: '1', outcome: 'success' })).toBeGreaterThanOrEqual(1);
    expect(moved('svckit_webhook_deliveries', { state: 'delivered' })).toBeGreaterThanOrEqual(1);
    expect(moved('svckit_jsonrpc_calls_total', { method: 'eth_blockNumber', code: 'ok' })).toBe(1);
    expect(moved('svckit_jsonrpc_calls_total', { method: OTHER, code: '-32601' })).toBe(1);
    expect(total(after, 'svckit_chain_head_block')).toBeGreaterThan(0);
    expect(total(after, 'svckit_chain_seconds_since_last_block')).toBeGreaterThanOrEqual(0);
    expect(total(after, 'svckit_dependency_round_trip_seconds', { dependency: 'database' })).toBeGreaterThan(0);
    expect(total(after, 'svckit_websocket_connections')).toBe(0);
    await admin(target, 'DELETE', `/webhooks/endpoints/${endpointId}`);
  });
});

describe('scrape-time and refusal metrics', () => {
  it('counts open /ws connections and subscriptions', async () => {
    const key = await issueApiKey(target, ['chain:subscribe']);
    const socket = await openWithToken(target, key.token);
    socket.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['newHeads'] }));
    expect(await nextFrame(socket)).toMatchObject({ id: 1, result: expect.any(String) });
    const open = await scrape();
    expect(total(open, 'svckit_websocket_connections')).toBe(1);
    expect(total(open, 'svckit_websocket_subscriptions')).toBe(1);
    const ending = closed(socket);
    socket.close();
    await ending;
    await eventually(async () => (total(await scrape(), 'svckit_websocket_connections') === 0 ? true : undefined));
    expect(total(await scrape(), 'svckit_websocket_subscriptions')).toBe(0);
  });

  it('counts rate-limit refusals by surface', async () => {
    const before = total(await scrape(), 'svckit_rate_limit_refusals_total', { surface: 'site' });
    const answers = await Promise.all(
      Array.from({ length: 12 }, () =>
        request(target, `${target.site!.href}.well-known/pqc-evidence.json`, PROBE_LIMIT),
      ),
    );
    const refused = answers.filter((a) => a.status === 429).length;
    expect(refused).toBeGreaterThan(0);
    const after = total(await scrape(), 'svckit_rate_limit_refusals_total', { surface: 'site' });
    expect(after - before).toBe(refused);
  });

  it("reads the evidence document's age from its generated time, and NaN without one", async () => {
    const dir = path.join(started.config.dataDir, 'evidence');
    rmSync(path.join(dir, 'pqc-evidence.json'), { force: true });
    expect(total(await scrape(), 'svckit_evidence_document_age_seconds')).toBeNaN();
    mkdirSync(dir, { recursive: true });
    const generated = new Date(Date.now() - 3_600_000).toISOString();
    writeFileSync(path.join(dir, 'pqc-evidence.json'), JSON.stringify({ generated }));
    const age = total(await scrape(), 'svckit_evidence_document_age_seconds');
    expect(age).toBeGreaterThanOrEqual(3600);
    expect(age).toBeLessThan(3700);
  });
});

/** The methods of the chain contract: the only `method` values of svckit_jsonrpc_calls_total besides `other`. */
const RPC_METHODS = new Set(
  (
    JSON.parse(readFileSync(new URL('../../specs/chain.openrpc.json', import.meta.url), 'utf8')) as {
      methods: { name: string }[];
    }
  ).methods.map((m) => m.name),
);

/** D-278: for each label name, whether a value is in its fixed set (`route` is checked per origin below). */
const ALLOWED: Record<string, (value: string) => boolean> = {
  origin: (v) => ['base', 'wallet', 'site'].includes(v),
  method: (v) => HTTP_METHODS.has(v) || RPC_METHODS.has(v) || v === OTHER,
  status: (v) => /^[1-5][0-9]{2}$/.test(v) || ['pending', 'confirmed', 'failed'].includes(v),
  le: (v) => v === '+Inf' || Number.isFinite(Number(v)),
  surface: (v) => (SURFACES as readonly string[]).includes(v),
  state: (v) => ['pending', 'delivered', 'dead'].includes(v),
  attempt: (v) => ['1', '2', '3', '4', '5', OTHER].includes(v),
  outcome: (v) => ['success', 'failure'].includes(v),
  kind: (v) => (UPSTREAM_ERROR_KINDS as readonly string[]).includes(v),
  code: (v) => v === 'ok' || v === OTHER || knownCode(Number(v)),
  dependency: (v) => (DEPENDENCIES as readonly string[]).includes(v),
  source: (v) => (COLLECT_SOURCES as readonly string[]).includes(v),
};

describe('label values are bounded (D-278)', () => {
  it('keeps every label in its fixed set after requests to random paths, ids, addresses and methods', async () => {
    const marks: string[] = [];
    const mark = () => {
      const m = randomBytes(6).toString('hex');
      marks.push(m);
      return m;
    };
    const address = () => `0x${mark()}${randomBytes(14).toString('hex')}`;
    const key = await apiKey(target, ['transfers:read', 'accounts:read']);
    const paths = [
      () => `no-such-${mark()}`,
      () => `api/v1/address/${address()}`,
      () => `api/v1/tx/0x${mark()}${randomBytes(26).toString('hex')}`,
      () => `admin/v1/accounts/acc_${mark()}`,
      () => `wallet/api/v1/accounts/acc_${mark()}/balance`,
      () => `wallet/api/v1/transfers/${mark()}`,
      () => `docs/${mark()}`,
      () => `metrics/${mark()}`,
    ];
    for (let round = 0; round < 3; round++) {
      for (const make of paths) {
        await request(target, make(), { headers: { authorization: `Bearer ${key}` } });
        await request(target, make(), { method: 'DELETE' });
      }
      await request(target, `${target.site!.href}${mark()}`);
      await request(target, `${target.wallet!.href}${mark()}/${mark()}`, { method: 'PROPFIND' });
      await rpc(target, `eth_${mark()}`);
      await rpc(target, 'eth_getBalance', [address(), 'latest']);
      await rpc(target, 'eth_getTransactionByHash', [`0x${mark()}${randomBytes(26).toString('hex')}`]);
      await request(target, 'rpc', { body: [{ jsonrpc: '2.0', id: 1, method: mark() }, { nonsense: mark() }] });
    }
    const res = await scrapeAs();
    expect(res.status).toBe(200);
    for (const m of marks) expect(res.text, `a request value reached the metrics: ${m}`).not.toContain(m);
    const samples = parsePrometheus(res.text);
    for (const sample of samples) {
      for (const [name, value] of Object.entries(sample.labels)) {
        if (name === 'route') {
          const known = stack.metrics.routes.get(sample.labels.origin as OriginName);
          expect(value === UNMATCHED || known?.has(value), `${sample.name} route="${value}"`).toBe(true);
          continue;
        }
        const allowed = ALLOWED[name];
        expect(allowed, `${sample.name} has a label "${name}" with no fixed set`).toBeDefined();
        expect(allowed!(value), `${sample.name} ${name}="${value}"`).toBe(true);
      }
    }
    expect(total(samples, 'svckit_http_request_duration_seconds_count', { route: UNMATCHED })).toBeGreaterThan(0);
    // Every registered route of every origin, each method and status seen: far below this bound.
    const series = new Set(samples.map((s) => `${s.name}${JSON.stringify(s.labels)}`));
    expect(series.size).toBeLessThan(2500);
  });
});
