// D-261: /ws takes a bearer API key in the access_token query parameter when the upgrade has no Authorization
// header, so that a WHATWG WebSocket (Node's global WebSocket, as viem's webSocket transport uses it) can
// authenticate; the refusals keep the 401/403 {error} shape of D-016.
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Target } from '../../../conformance/targets/target.ts';
import { trustTestCa } from '../../support/stack.ts';
import { issueApiKey, openWs, startWsStack } from './support.ts';

let target: Target;
let close: () => Promise<void>;
let subscriber: string;
let reader: string;

/** The wss URL of /ws with `query`. */
const wsUrl = (query: string) => `${new URL('ws', target.base!.href.replace(/^https/, 'wss')).href}?${query}`;

/** Opens /ws at `url` with the `ws` client; resolves with the socket or the refusal's status and body. */
function open(
  url: string,
  headers: Record<string, string> = {},
): Promise<WebSocket | { status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, { headers, ca: target.caCert });
    socket.once('open', () => resolve(socket));
    socket.once('unexpected-response', (_request, response) => {
      let body = '';
      response.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    socket.once('error', reject);
  });
}

beforeAll(async () => {
  ({ target, close } = await startWsStack());
  subscriber = (await issueApiKey(target, ['chain:subscribe'])).token;
  reader = (await issueApiKey(target, ['accounts:read'])).token;
});
afterAll(async () => {
  await close?.();
});

describe('/ws with the API key in access_token (D-261)', () => {
  it("lets Node's global WebSocket, which cannot set headers, in and answers JSON-RPC", async () => {
    trustTestCa(target.caCert!);
    const socket = new globalThis.WebSocket(wsUrl(`access_token=${subscriber}`));
    const frame = await new Promise<unknown>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no /ws answer within 10 s')), 10_000);
      socket.onopen = () => socket.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }));
      socket.onmessage = (event) => {
        clearTimeout(timer);
        resolve(JSON.parse(String(event.data)));
      };
      socket.onerror = () => reject(new Error('the upgrade was refused'));
    });
    socket.close();
    expect(frame).toEqual({ jsonrpc: '2.0', id: 1, result: '0x10f447' });
  });

  it('refuses an unknown or malformed key with 401, a key without chain:subscribe with 403, in the {error} shape', async () => {
    const unknown = `svc_${'A'.repeat(43)}`;
    const cases: [string, number, string][] = [
      [`access_token=${unknown}`, 401, ''],
      ['access_token=not-a-key', 401, '"access_token" expected "svc_" followed by 43 base64url characters'],
      [`access_token=${subscriber}&access_token=${subscriber}`, 401, '"access_token" given more than once'],
      [`access_token=${reader}`, 403, ''],
      ['other=1', 401, 'missing Authorization header'],
    ];
    for (const [query, status, text] of cases) {
      const answer = await open(wsUrl(query));
      expect(answer, query).not.toBeInstanceOf(WebSocket);
      const refused = answer as { status: number; body: string };
      expect(refused.status, query).toBe(status);
      const body = JSON.parse(refused.body) as { error: string; code: string };
      expect(typeof body.error, query).toBe('string');
      expect(body.error, query).toContain(text);
    }
  });

  it('reads the Authorization header when there is one: a bad header is not rescued by a good query key', async () => {
    const answer = await open(wsUrl(`access_token=${subscriber}`), { authorization: `Bearer svc_${'B'.repeat(43)}` });
    expect(answer).toMatchObject({ status: 401 });
    const socket = await openWs(target, { authorization: `Bearer ${subscriber}` });
    expect(socket).toBeInstanceOf(WebSocket);
    (socket as WebSocket).close();
  });
});
