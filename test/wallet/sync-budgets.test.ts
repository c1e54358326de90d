// D-217, D-218, D-219: sync storage is budgeted per identity, per client IP and in total, and new identities
// per client IP, so one client cannot fill the ledger's database with ciphertext under identities it makes
// for free. Requests leave from several loopback source addresses (127.0.0.x) to play several client IPs.
import https from 'node:https';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { login, newIdentity, registrationProof } from '../../conformance/checks/wallet/support.ts';
import { referenceTarget } from '../../conformance/targets/reference.ts';
import type { Target } from '../../conformance/targets/target.ts';
import { createSyncDevice, type SyncDeviceKeys } from '../../src/client/wallet/sync.ts';
import { toHex } from '../../src/crypto/index.ts';

/** The figures the stack runs with (SVC_WALLET_SYNC_BYTES_*, SVC_WALLET_IDENTITIES_PER_IP). */
const PER_IP = 400_000;
const PER_IDENTITY = 250_000;
const IDENTITIES_PER_IP = 5;
/** One envelope's size: within the contract's 1,120 to 66,656 bytes. */
const ENVELOPE = 60_000;

type Answer = { status: number; headers: Record<string, string | string[] | undefined>; json: unknown };

/** One HTTPS request to {wallet_api_url} leaving from the loopback address `ip`. */
function from(
  target: Target,
  ip: string,
  method: string,
  path: string,
  body?: unknown,
  token?: string,
): Promise<Answer> {
  const text = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = https.request(
      new URL(path.replace(/^\//, ''), target.wallet),
      {
        method,
        ca: target.caCert,
        localAddress: ip,
        agent: false,
        headers: {
          ...(text ? { 'content-type': 'application/json' } : {}),
          ...(token ? { authorization: `Bearer ${token}` } : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const raw = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode ?? 0, headers: res.headers, json: raw ? JSON.parse(raw) : undefined });
        });
      },
    );
    req.on('error', reject);
    req.end(text);
  });
}

/** An envelope-shaped body of `size` bytes: the "SVS" 0x01 header, then random bytes (the server never opens it). */
function envelope(size: number): string {
  const bytes = new Uint8Array(size);
  crypto.getRandomValues(bytes.subarray(4, Math.min(size, 65_536)));
  bytes.set([0x53, 0x56, 0x53, 0x01]);
  return Buffer.from(bytes).toString('base64');
}

/** A signed-in identity (registered from 127.0.0.1) with `n` sync devices registered from `ip`. */
async function syncIdentity(target: Target, ip: string, n: number) {
  const { token, identity } = await login(target);
  const devices: SyncDeviceKeys[] = [];
  for (let i = 0; i < n; i++) {
    const device = createSyncDevice();
    const res = await from(
      target,
      ip,
      'PUT',
      `/sync/devices/${device.deviceId}`,
      {
        kemPublicKey: toHex(device.publicKey),
      },
      token,
    );
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    devices.push(device);
  }
  const post = (sourceIp: string, fromIndex: number, toIndexes: number[], size = ENVELOPE) =>
    from(
      target,
      sourceIp,
      'POST',
      '/sync/envelopes',
      {
        fromDevice: devices[fromIndex]!.deviceId,
        envelopes: toIndexes.map((i) => ({ toDevice: devices[i]!.deviceId, data: envelope(size) })),
      },
      token,
    );
  return { token, identity, devices, post };
}

const DEVICE_BYTES = 1184;

let target: Target;
beforeAll(async () => {
  target = await referenceTarget({
    env: {
      SVC_WALLET_SYNC_BYTES_PER_IP: String(PER_IP),
      SVC_WALLET_SYNC_BYTES_PER_IDENTITY: String(PER_IDENTITY),
      SVC_WALLET_IDENTITIES_PER_IP: String(IDENTITIES_PER_IP),
      // The request rates (D-024) are lifted so that every 429 here is a budget's; test/ratelimits covers them.
      SVC_RATE_LIMIT_WALLET: '0',
      SVC_RATE_LIMIT_WALLET_AUTH: '0',
    },
  });
});
afterAll(async () => target?.close?.());

describe('sync bytes per client IP (D-218)', () => {
  it('refuses one IP before its figure, across identities and overwrites, while another IP still writes', async () => {
    const a = await syncIdentity(target, '127.0.0.1', 2);
    const b = await syncIdentity(target, '127.0.0.1', 2);
    const c = await syncIdentity(target, '127.0.0.1', 2);
    let accepted = 6 * DEVICE_BYTES;
    let refused: Answer | undefined;
    // The same pair over and over: what is held stays one envelope, but every write counts against the IP.
    for (const writer of [a, b, c, a, b, c, a, b, c]) {
      const res = await writer.post('127.0.0.1', 0, [1]);
      if (res.status === 200) {
        accepted += ENVELOPE;
        continue;
      }
      refused = res;
      break;
    }
    expect(refused?.status).toBe(429);
    expect(refused?.json).toMatchObject({ code: 'RATE_LIMITED', error: expect.stringContaining('24 hours') });
    expect(Number(refused?.headers['retry-after'])).toBeGreaterThan(0);
    expect(accepted).toBeLessThanOrEqual(PER_IP);
    expect(accepted + ENVELOPE).toBeGreaterThan(PER_IP);
    // Deleting a device and writing again gives nothing back: the IP's budget is what it wrote.
    const freshDevice = createSyncDevice();
    expect(
      (await from(target, '127.0.0.1', 'DELETE', `/sync/devices/${c.devices[1]!.deviceId}`, undefined, c.token)).status,
    ).toBe(204);
    const again = await from(
      target,
      '127.0.0.1',
      'PUT',
      `/sync/devices/${freshDevice.deviceId}`,
      {
        kemPublicKey: toHex(freshDevice.publicKey),
      },
      c.token,
    );
    // A device key (1,184 bytes) still fits the IP's budget; an envelope no longer does.
    expect(again.status).toBe(200);
    accepted += DEVICE_BYTES;
    expect(accepted).toBeLessThanOrEqual(PER_IP);
    expect((await a.post('127.0.0.1', 1, [0])).status).toBe(429);
    // Another client IP writes for the same identities.
    const other = await b.post('127.0.0.2', 0, [1]);
    expect(other.status, JSON.stringify(other.json)).toBe(200);
  });
});

describe('sync bytes per identity (D-217)', () => {
  it('refuses growth past the identity budget with 413, lets a write that holds no more through, and frees on delete', async () => {
    const d = await syncIdentity(target, '127.0.0.5', 5);
    const first = await d.post('127.0.0.5', 0, [1, 2, 3, 4]);
    expect(first.status, JSON.stringify(first.json)).toBe(200);
    // 5 devices and 4 envelopes: 245,920 bytes of 250,000; one more envelope passes the budget.
    const over = await d.post('127.0.0.5', 1, [0]);
    expect(over.status).toBe(413);
    expect(over.json).toMatchObject({
      code: 'SYNC_QUOTA_EXCEEDED',
      error: expect.stringContaining(String(PER_IDENTITY)),
    });
    // Nothing of a refused post is stored: a post naming a new pair and an existing one stores neither.
    const mixed = await d.post('127.0.0.5', 0, [1, 2], ENVELOPE + 5_000);
    expect(mixed.status).toBe(413);
    const listed = await from(
      target,
      '127.0.0.5',
      'GET',
      `/sync/envelopes?device=${d.devices[1]!.deviceId}`,
      undefined,
      d.token,
    );
    expect((listed.json as { items: { version: number }[] }).items.map((i) => i.version)).toEqual([1]);
    // An overwrite of the same size holds no more than before.
    expect((await d.post('127.0.0.5', 0, [1])).status).toBe(200);
    // Removing a device frees its key and envelopes, and the write that did not fit now does.
    expect(
      (await from(target, '127.0.0.5', 'DELETE', `/sync/devices/${d.devices[4]!.deviceId}`, undefined, d.token)).status,
    ).toBe(204);
    const after = await d.post('127.0.0.5', 1, [0]);
    expect(after.status, JSON.stringify(after.json)).toBe(200);
  });
});

describe('new identities per client IP (D-219)', () => {
  const register = (ip: string, identity = newIdentity()) =>
    from(
      target,
      ip,
      'POST',
      '/wallets/register',
      registrationProof(identity, undefined, new Date(target.reference!.now!()).toISOString()),
    );

  it('refuses a new identity past the figure with 429, stores nothing, and counts per IP and per hour', async () => {
    const known = newIdentity();
    expect((await register('127.0.0.3', known)).status).toBe(200);
    for (let i = 1; i < IDENTITIES_PER_IP; i++) expect((await register('127.0.0.3')).status).toBe(200);
    const refusedIdentity = newIdentity();
    const refused = await register('127.0.0.3', refusedIdentity);
    expect(refused.status).toBe(429);
    expect(refused.json).toMatchObject({
      code: 'RATE_LIMITED',
      error: expect.stringContaining(`at most ${IDENTITIES_PER_IP}`),
    });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    // Nothing was stored: the svcId has no challenge to ask for.
    const challenge = await from(target, '127.0.0.4', 'POST', '/auth/challenge', {
      address: refusedIdentity.chain.address,
      svcId: refusedIdentity.svcId,
    });
    expect(challenge.status).toBe(404);
    // Registering a known identity again is not a new identity.
    expect((await register('127.0.0.3', known)).json).toMatchObject({ ok: true, isNew: false });
    // Another IP registers; an IPv4 address is its own key.
    expect((await register('127.0.0.4')).status).toBe(200);
    // An hour later the IP registers again.
    target.reference!.advanceClock!(3_600_000);
    expect((await register('127.0.0.3', refusedIdentity)).json).toMatchObject({ ok: true, isNew: true });
  });
});
