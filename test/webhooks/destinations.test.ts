// D-143: webhook receivers are public HTTPS endpoints. A literal loopback, private, link-local or unspecified
// address is refused at registration (400); a host name that resolves to one is refused at every attempt,
// before any connection; SVC_WEBHOOK_ALLOW_PRIVATE lifts both for development and tests. Attempt records
// carry fixed phrases, never an address, port or host name. Real TLS listeners on loopback count the
// connections they accept; the last test runs the reference stack with the flag off.
import { mkdtempSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiKey, newAccount } from '../../conformance/checks/institutional/support.ts';
import { referenceTarget } from '../../conformance/targets/reference.ts';
import type { Target } from '../../conformance/targets/target.ts';
import { receiverTls } from '../../conformance/webhooks/receiver-tls.ts';
import { systemClock } from '../../src/clock.ts';
import { ensureDevCertificates } from '../../src/server/tls/dev-certificates.ts';
import { isPublicAddress } from '../../src/webhooks/destination.ts';
import { WebhookTransport } from '../../src/webhooks/transport.ts';
import { admin, eventually, expectContract, wallet } from '../admin/support.ts';

/** A real HTTPS listener on 127.0.0.1 that counts the TCP connections it accepts and answers 200. */
type Listener = { port: number; accepts: number; requests: number; close(): Promise<void> };

async function listener(tls: { cert: string; key: string }): Promise<Listener> {
  const state = { accepts: 0, requests: 0 };
  const server = https.createServer({ cert: tls.cert, key: tls.key }, (req, res) => {
    state.requests++;
    req.resume();
    res.writeHead(200).end();
  });
  server.on('connection', () => state.accepts++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    get accepts() {
      return state.accepts;
    },
    get requests() {
      return state.requests;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

let tls: Awaited<ReturnType<typeof receiverTls>>;
let receiver: Listener;
const transports: WebhookTransport[] = [];
const transport = (options: Partial<ConstructorParameters<typeof WebhookTransport>[1]> = {}) => {
  const made = new WebhookTransport(systemClock, { ca: [tls.caCert], maxSockets: 2, ...options });
  transports.push(made);
  return made;
};
const BODY = '{"event":"payment.initiated"}';

beforeAll(async () => {
  tls = await receiverTls();
  receiver = await listener(tls);
});
afterAll(async () => {
  for (const t of transports) t.close();
  await receiver?.close();
});

describe('webhook attempts (D-143)', () => {
  it('refuse a host name that resolves to loopback, without connecting', async () => {
    const before = receiver.accepts;
    const result = await transport().post(`https://localhost:${receiver.port}/hooks/a`, BODY, {});
    expect(result).toMatchObject({ success: false, responseStatus: null, error: 'destination not allowed' });
    // A resolver that answers a private address for a public-looking name: refused the same way.
    const played = await transport({ resolver: async () => [{ address: '127.0.0.1', family: 4 }] }).post(
      `https://hooks.bank-a.example:${receiver.port}/hooks/b`,
      BODY,
      {},
    );
    expect(played).toMatchObject({ success: false, error: 'destination not allowed' });
    // One private address among public ones refuses the name: the socket may try any of them.
    const mixed = await transport({
      resolver: async () => [
        { address: '93.184.216.34', family: 4 },
        { address: '::ffff:169.254.169.254', family: 6 },
      ],
    }).post('https://hooks.bank-a.example/hooks/c', BODY, {});
    expect(mixed).toMatchObject({ success: false, error: 'destination not allowed' });
    for (const literal of ['127.0.0.1', '[::1]', '[::ffff:127.0.0.1]']) {
      expect(await transport().post(`https://${literal}:${receiver.port}/hooks/d`, BODY, {}), literal).toMatchObject({
        success: false,
        error: 'destination not allowed',
      });
    }
    expect(receiver.accepts - before).toBe(0);
  });

  it('with SVC_WEBHOOK_ALLOW_PRIVATE reach a loopback receiver, at the address the check resolved', async () => {
    const before = { accepts: receiver.accepts, requests: receiver.requests };
    const lookups: string[] = [];
    const allowed = transport({
      allowPrivate: true,
      resolver: async (hostname) => {
        lookups.push(hostname);
        return [{ address: '127.0.0.1', family: 4 }];
      },
    });
    const result = await allowed.post(`https://localhost:${receiver.port}/hooks/e`, BODY, {});
    expect(result).toMatchObject({ success: true, responseStatus: 200, error: null });
    expect(receiver.requests - before.requests).toBe(1);
    expect(receiver.accepts - before.accepts).toBe(1);
    // The connection used the checked answer: one resolution, no second lookup by the socket.
    expect(lookups).toEqual(['localhost']);
  });

  it('record fixed phrases, never the address, port or host name', async () => {
    const allowed = transport({ allowPrivate: true });
    // A port nothing listens on: the closed listener's.
    const closed = await listener(tls);
    await closed.close();
    const refused = await allowed.post(`https://127.0.0.1:${closed.port}/hooks/f`, BODY, {});
    expect(refused.error).toBe('connection failed');
    // A certificate from a CA the dispatcher does not trust.
    const strangerTls = await ensureDevCertificates(
      mkdtempSync(path.join(tmpdir(), 'svckit-stranger-')),
      [],
      'stranger CA',
    );
    const stranger = await listener(strangerTls);
    try {
      const untrusted = await allowed.post(`https://localhost:${stranger.port}/hooks/g`, BODY, {});
      expect(untrusted.error).toBe('TLS handshake failed');
    } finally {
      await stranger.close();
    }
    const unknown = await allowed.post('https://no-such-host.invalid/hooks/h', BODY, {});
    expect(unknown.error).toBe('host not found');
  });
});

describe('webhook endpoints on a stack without SVC_WEBHOOK_ALLOW_PRIVATE (D-143)', () => {
  let target: Target;
  beforeAll(async () => {
    target = await referenceTarget({ env: { SVC_WEBHOOK_ALLOW_PRIVATE: 'false' } });
  });
  afterAll(async () => {
    await target?.close?.();
  });

  it('refuses a literal non-public address at registration with 400, each class of it', async () => {
    const accountIds = [(await newAccount(target)).id];
    const literals = [
      '127.0.0.1',
      '127.1.2.3',
      '0.0.0.0',
      '0.1.2.3',
      '10.0.0.1',
      '100.64.0.1',
      '172.16.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '[::1]',
      '[::]',
      '[fe80::1]',
      '[fc00::1]',
      '[fd00:ec2::254]',
      '[::ffff:127.0.0.1]',
      '[::ffff:10.0.0.1]',
      '[::ffff:a9fe:a9fe]',
    ];
    for (const host of literals) {
      const url = `https://${host}:8443/hooks`;
      const res = await admin(target, 'POST', '/webhooks/endpoints', { url, accountIds });
      await expectContract('admin.openapi.yaml', 'POST /webhooks/endpoints', res, 400);
      expect((res.json as { error: string }).error, host).toMatch(
        /^"url" expected a public address, got "https:\/\/.+"/,
      );
    }
    // A public literal and a host name pass registration (a name is checked at every attempt).
    const created = await admin(target, 'POST', '/webhooks/endpoints', {
      url: 'https://93.184.216.34/hooks',
      accountIds,
    });
    expect(created.status).toBe(201);
    const { id } = created.json as { id: string };
    const moved = await admin(target, 'PATCH', `/webhooks/endpoints/${id}`, {
      url: 'https://[fd00:ec2::254]/latest/meta-data',
    });
    await expectContract('admin.openapi.yaml', 'PATCH /webhooks/endpoints/{id}', moved, 400);
    expect(
      (await admin(target, 'POST', '/webhooks/endpoints', { url: 'https://localhost:8443/hooks', accountIds })).status,
    ).toBe(201);
  });

  it('refuses a name that resolves to loopback at the attempt, without connecting, and records only that', async () => {
    const before = receiver.accepts;
    const debtor = await newAccount(target, { fund: '10.00' });
    const created = await admin(target, 'POST', '/webhooks/endpoints', {
      url: `https://localhost:${receiver.port}/hooks/stack`,
      accountIds: [debtor.id],
      events: ['payment.initiated'],
    });
    expect(created.status).toBe(201);
    const { id } = created.json as { id: string };
    await admin(target, 'PUT', `/webhooks/endpoints/${id}/secret`, {
      secret: 'whsec_JFGTla5bYScCb4aK2IvnRRiBIk5TAru2IYOc7uStGFU',
    });
    const key = await apiKey(target, ['transfers:write']);
    expect(
      (
        await wallet(target, 'POST', '/transfers', key, {
          fromAccountId: debtor.id,
          to: '0x00000000000000000000000000000000000000e1',
          amount: '1.00',
        })
      ).status,
    ).toBe(201);
    const attempt = await eventually(async () => {
      const page = (await admin(target, 'GET', `/webhooks/deliveries?endpointId=${id}`)).json as {
        deliveries: { attempts: { error: string | null; responseStatus: number | null }[] }[];
      };
      return page.deliveries[0]?.attempts[0];
    });
    expect(attempt).toMatchObject({ error: 'destination not allowed', responseStatus: null });
    expect(receiver.accepts - before).toBe(0);
  });
});

describe('addresses that carry an IPv4 address inside IPv6 (D-143)', () => {
  it('are as public as the IPv4 address they carry: NAT64 and 6to4; Teredo and local-use NAT64 never', () => {
    const refused = [
      '64:ff9b::7f00:1', // NAT64 of 127.0.0.1
      '64:ff9b::10.0.0.1', // the same prefix written with a dotted quad
      '64:ff9b::a9fe:a9fe', // NAT64 of the metadata address 169.254.169.254
      '2002:c0a8:101::1', // 6to4 of 192.168.1.1
      '2002:7f00:1::', // 6to4 of 127.0.0.1
      '2001:0:4136:e378:8000:63bf:3fff:fdd2', // Teredo
      '64:ff9b:1::808:808', // local-use NAT64, even of a public address
    ];
    for (const address of refused) expect(isPublicAddress(address), address).toBe(false);
    const allowed = ['64:ff9b::808:808', '2002:808:808::1', '2606:4700:4700::1111', '8.8.8.8'];
    for (const address of allowed) expect(isPublicAddress(address), address).toBe(true);
  });
});
