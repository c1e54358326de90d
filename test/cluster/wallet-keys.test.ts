// Three `svckit serve` processes on one PostgreSQL act as one wallet service (D-214): a session token issued
// by one instance is accepted by the others, all three publish the same JWKS, answer the same stand-in salt
// for an unknown email (D-216), and sign the extension package with the same release key; a key rotated
// through one instance is taken up by all, the retired key verifying on each for its grace period (D-215). The instances share {wallet_api_url} as behind a load
// balancer (SVC_WALLET_PUBLIC_URL: the token's iss and aud), and nothing else of the wallet.
import { rmSync } from 'node:fs';
import { get } from 'node:https';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminCall } from '../../conformance/checks/institutional/support.ts';
import { call, jwtPart, login } from '../../conformance/checks/wallet/support.ts';
import { request } from '../../conformance/http.ts';
import { fromHex, mlDsa65 } from '../../src/crypto/index.ts';
import { KEY_REFRESH_MS } from '../../src/server/wallet/keys.ts';
import { extensionFixture } from '../wallet/support.ts';
import type { Target } from '../../conformance/targets/target.ts';
import { startCluster, type Cluster } from './harness.ts';

let cluster: Cluster;
const extensionDir = extensionFixture();

beforeAll(async () => {
  cluster = await startCluster({
    instances: 3,
    env: {
      SVC_WALLET_PUBLIC_URL: 'https://wallet.cluster.svckit.test',
      SVC_WALLET_EXTENSION_DIR: extensionDir,
      SVC_RATE_LIMIT_WALLET_AUTH: '0',
    },
  });
});
afterAll(async () => {
  await cluster?.stop();
  rmSync(extensionDir, { recursive: true, force: true });
});

/** The body of a GET on the target's site origin, as bytes (the package is binary). */
function bytesOf(target: Target, pathname: string): Promise<{ status: number; body: Buffer }> {
  return new Promise((resolve, reject) => {
    get(new URL(pathname, target.site), { ca: target.caCert }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    }).on('error', reject);
  });
}

describe('the wallet service keys are the same on every instance (D-214)', () => {
  it('a session token issued by instance 1 is accepted by instances 2 and 3', async () => {
    const [one, ...others] = cluster.instances.map((i) => i.target);
    const { token, identity } = await login(one!);
    for (const target of [one!, ...others]) {
      const res = await call(target, 'GET', '/sync/devices', { token });
      expect(res.status, `${target.wallet}: ${res.text.slice(0, 200)}`).toBe(200);
    }
    // And the other way round: a token of instance 3 on instance 1.
    const { token: third } = await login(others[1]!, identity);
    expect((await call(one!, 'GET', '/sync/devices', { token: third })).status).toBe(200);
  });

  it('all three serve the same JWKS', async () => {
    const sets = await Promise.all(
      cluster.instances.map(async (i) => (await call(i.target, 'GET', '/.well-known/jwks.json')).json),
    );
    expect((sets[0] as { keys: unknown[] }).keys).toHaveLength(1);
    expect(sets[1]).toEqual(sets[0]);
    expect(sets[2]).toEqual(sets[0]);
  });

  it('all three answer the same stand-in salt for an email with no managed account (D-216)', async () => {
    const salts = await Promise.all(
      cluster.instances.map(
        async (i) =>
          (await call(i.target, 'GET', '/managed/salt?email=nobody%40example.com')).json as {
            authKdf: { salt: string };
          },
      ),
    );
    expect(salts[0]!.authKdf.salt).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(new Set(salts.map((s) => s.authKdf.salt)).size).toBe(1);
  });

  it('all three sign the extension package with the same release key', async () => {
    const keys: string[] = [];
    for (const { target } of cluster.instances) {
      const pub = await request(target, new URL('/downloads/svckit-wallet-extension.pub', target.site));
      expect(pub.status).toBe(200);
      keys.push(pub.text.trim());
      const redirect = await call(target, 'GET', '/download/extension');
      expect(redirect.status).toBe(302);
      const location = new URL(redirect.headers.location!);
      const zip = await bytesOf(target, location.pathname);
      const sig = await bytesOf(target, `${location.pathname}.sig`);
      expect(zip.status).toBe(200);
      const signature = fromHex(sig.body.toString('utf8').trim());
      expect(mlDsa65.verify(fromHex(keys[0]!), new Uint8Array(zip.body), signature), String(target.site)).toBe(true);
    }
    expect(new Set(keys).size).toBe(1);
  });

  it('a rotation through instance 1 reaches instances 2 and 3; the retired key keeps verifying everywhere (D-215)', async () => {
    const targets = cluster.instances.map((i) => i.target);
    const { token: before, identity } = await login(targets[1]!);
    const res = await adminCall(targets[0]!, 'POST', '/wallet-keys/token-signing/rotate');
    expect(res.status, res.text.slice(0, 200)).toBe(200);
    const { kid, previousKid } = res.json as { kid: string; previousKid: string };
    expect(jwtPart(before, 0).kid).toBe(previousKid);
    const kidsOf = async (target: Target) =>
      ((await call(target, 'GET', '/.well-known/jwks.json')).json as { keys: { kid: string }[] }).keys.map(
        (k) => k.kid,
      );
    const deadline = Date.now() + 3 * KEY_REFRESH_MS;
    for (const target of targets) {
      while ((await kidsOf(target))[0] !== kid) {
        if (Date.now() > deadline) throw new Error(`${target.wallet}: still signing with ${previousKid}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(await kidsOf(target)).toEqual([kid, previousKid]);
    }
    const { token: after } = await login(targets[2]!, identity);
    expect(jwtPart(after, 0).kid).toBe(kid);
    for (const target of targets) {
      expect((await call(target, 'GET', '/sync/devices', { token: before })).status).toBe(200);
      expect((await call(target, 'GET', '/sync/devices', { token: after })).status).toBe(200);
    }
  });
});
