// Surface E beyond the login: fees (D-014), the signed extension download, the unified history (native chain
// through {base_url}/rpc; other sources named, unavailable ones listed), cross-device sync where the server
// sees only ciphertext (spec rule 6), and the /auth/* rate limit (D-024).
import { createHash, randomBytes } from 'node:crypto';
import https from 'node:https';
import type { Hex } from 'viem';
import {
  aes256Gcm,
  concatBytes,
  fromHex,
  hkdfSha256,
  mlDsa65,
  mlKem768,
  sha3_256,
  toHex,
  type MlKem768KeyPair,
} from '@svckit/sdk/crypto';
import type { Check } from '../../catalogue.ts';
import type { HttpResult } from '../../http.ts';
import type { Target } from '../../targets/target.ts';
import { freshAddress, minedTransaction } from '../explorer/support.ts';
import { Unavailable, verdict } from '../define.ts';
import { call, defineCheck, expectError, login, problems, WALLET } from './support.ts';

/** GETs `url` (any origin of the target) as bytes, trusting the target's CA. */
function fetchBytes(
  target: Target,
  url: string,
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    https
      .get(url, { ca: target.caCert, agent: false, timeout: 15_000 }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
        );
      })
      .on('error', reject);
  });
}

const SYNC_HEADER = Uint8Array.of(0x53, 0x56, 0x53, 0x01);
const syncInfo = (svcId: string, from: string, to: string) =>
  concatBytes(new TextEncoder().encode('svckit/sync/v1'), fromHex(svcId), fromHex(from), fromHex(to));

/** Seals `state` to the recipient device with the layout of `SyncEnvelopeData` (D-082), built from the crypto façade. */
export function sealSync(
  recipient: Uint8Array,
  state: Uint8Array,
  svcId: string,
  from: string,
  to: string,
): Uint8Array {
  const { ciphertext, sharedSecret } = mlKem768.encapsulate(recipient);
  const nonce = new Uint8Array(randomBytes(12));
  const key = hkdfSha256(sharedSecret, ciphertext, syncInfo(svcId, from, to), 32);
  return concatBytes(SYNC_HEADER, ciphertext, nonce, aes256Gcm.encrypt(key, nonce, state, SYNC_HEADER));
}

/** Opens a sync envelope with the recipient's decapsulation key. */
export function openSync(
  recipient: MlKem768KeyPair,
  envelope: Uint8Array,
  svcId: string,
  from: string,
  to: string,
): Uint8Array {
  const kemCiphertext = envelope.subarray(4, 4 + 1088);
  const nonce = envelope.subarray(4 + 1088, 4 + 1088 + 12);
  const key = hkdfSha256(
    mlKem768.decapsulate(recipient.secretKey, kemCiphertext),
    kemCiphertext,
    syncInfo(svcId, from, to),
    32,
  );
  return aes256Gcm.decrypt(key, nonce, envelope.subarray(4 + 1088 + 12), SYNC_HEADER);
}

export const deviceIdOf = (publicKey: Uint8Array) => toHex(sha3_256(publicKey).subarray(0, 8));

/** The checks of fees, downloads, history, sync and the rate limit. */
export function walletFeatureChecks(): Check[] {
  return [
    defineCheck({
      id: 'wallet.fees.config',
      title: 'GET /fees/config gives the fee in basis points (integer 0 to 10000) and at most one collector per chain',
      source: { quote: 'platform fee configuration: a fee in basis points and its collectors' },
      async run(ctx) {
        const res = await call(ctx.target, 'GET', '/fees/config');
        const found = await problems(ctx, 'GET /fees/config', res, 200);
        const chains = ((res.json as { collectors?: { chainId: string }[] })?.collectors ?? []).map((c) => c.chainId);
        if (new Set(chains).size !== chains.length)
          found.push(`collectors expected one per chainId, got ${chains.join(', ')}`);
        return verdict(found, res);
      },
    }),
    defineCheck({
      id: 'wallet.download.signed_zip',
      title: 'GET /download/extension is a 302 to a .zip on the site origin whose .sha256 and ML-DSA-65 .sig verify',
      source: { quote: 'HTTP 302 redirect to a signed .zip of the browser extension' },
      needs: [...WALLET, 'site'],
      async run(ctx) {
        const res = await call(ctx.target, 'GET', '/download/extension');
        const found = await problems(ctx, 'GET /download/extension', res, 302);
        const location = res.headers.location ?? '';
        if (found.length) return verdict(found, res);
        if (!/^https:\/\/.+\.zip$/.test(location))
          return verdict([`Location expected an https URL of a .zip, got ${JSON.stringify(location)}`], res);
        if (ctx.target.site && new URL(location).origin !== new URL(ctx.target.site).origin)
          found.push(`Location expected the site origin ${ctx.target.site.origin}, got ${location}`);
        const [zip, digest, sig, pub] = await Promise.all([
          fetchBytes(ctx.target, location),
          fetchBytes(ctx.target, `${location}.sha256`),
          fetchBytes(ctx.target, `${location}.sig`),
          fetchBytes(ctx.target, new URL('svckit-wallet-extension.pub', location).href),
        ]);
        if (zip.status !== 200 || zip.body.subarray(0, 4).toString('binary') !== 'PK\x03\x04')
          found.push(`the .zip expected 200 and a ZIP archive, got ${zip.status}`);
        if (!zip.body.includes(Buffer.from('manifest.json'))) found.push('the archive holds no manifest.json');
        const sha = createHash('sha256').update(zip.body).digest('hex');
        const named = digest.body.toString('utf8').trim().split(/\s+/);
        if (named[0] !== sha || named[1] !== location.split('/').pop())
          found.push(
            `.sha256 expected "${sha}  <file name>", got ${JSON.stringify(digest.body.toString('utf8').trim())}`,
          );
        const ok = mlDsa65.verify(
          fromHex(pub.body.toString('utf8').trim()),
          new Uint8Array(zip.body),
          fromHex(sig.body.toString('utf8').trim()),
        );
        if (!ok)
          found.push('the ML-DSA-65 signature (.sig) does not verify over the .zip with the release public key (.pub)');
        return verdict(found, res);
      },
    }),
    defineCheck({
      id: 'wallet.history.native_feed',
      title: 'GET /history on the native chain lists a transfer just mined, from {base_url}/rpc, with D-067 values',
      source: { decision: 'D-014' },
      needs: ['wallet', 'base', 'reference'],
      async run(ctx) {
        const { token } = await login(ctx.target);
        const to = freshAddress();
        const hash = await minedTransaction(ctx.target, { to, value: 12_345n });
        const res = await call(ctx.target, 'GET', `/history?chainId=1111111&address=${to}`, { token });
        const found = await problems(ctx, 'GET /history', res, 200);
        const body = res.json as { items: Record<string, unknown>[]; sources: { name: string; status: string }[] };
        const item = body?.items?.find((i) => i.txHash === (hash as Hex).toLowerCase());
        if (!item) found.push(`the feed does not list ${hash}`);
        else if (
          item.direction !== 'in' ||
          item.status !== 'confirmed' ||
          item.value !== '12345' ||
          item.asset !== 'SVC'
        )
          found.push(
            `item expected {direction: in, status: confirmed, value: "12345", asset: SVC}, got ${JSON.stringify(item)}`,
          );
        if (!body?.sources?.some((s) => s.status === 'available'))
          found.push(`sources expected the native source as available, got ${JSON.stringify(body?.sources)}`);
        return verdict(found, res);
      },
    }),
    defineCheck({
      id: 'wallet.history.sources_named',
      title:
        'Every /history answer names its sources; an unreachable one is listed as unavailable with an error, never left out',
      source: { decision: 'D-014' },
      async run(ctx) {
        const { token } = await login(ctx.target);
        const found: string[] = [];
        let last: HttpResult | undefined;
        let configured = 0;
        for (const [chainId, address] of [
          ['1111111', '0x5B38Da6a701c568545dCfcB03FcB875f56beddC4'],
          ['bitcoin', 'bc1qsenmhy2qmr56yyekv5lx59ch4pdnv6fhnhvlrg'],
          ['tron', 'TFDt8NJSLifRx9NS3u9FRi3JiCHbrnJqwE'],
          ['1', '0x5B38Da6a701c568545dCfcB03FcB875f56beddC4'],
        ]) {
          last = await call(ctx.target, 'GET', `/history?chainId=${chainId}&address=${address}`, { token });
          if (last.status === 400 && (last.json as { code?: string })?.code === 'UNSUPPORTED_CHAIN') continue;
          configured++;
          found.push(...(await problems(ctx, 'GET /history', last, 200, chainId)));
          const sources =
            (last.json as { sources?: { status: string; error?: string; chainId: string }[] })?.sources ?? [];
          if (!sources.length) found.push(`${chainId}: sources expected at least one entry`);
          for (const s of sources) {
            if ((s.status === 'unavailable') !== (typeof s.error === 'string'))
              found.push(`${chainId}: a source has error iff it is unavailable, got ${JSON.stringify(s)}`);
            if (s.chainId !== chainId) found.push(`${chainId}: source names chain ${s.chainId}`);
          }
        }
        if (!configured) throw new Unavailable('no chain is configured for /history');
        return verdict(found, last);
      },
    }),
    defineCheck({
      id: 'wallet.history.unsupported_chain',
      title: 'An unconfigured chainId is 400 UNSUPPORTED_CHAIN; an address of another chain is 400',
      source: { decision: 'D-065' },
      async run(ctx) {
        const { token } = await login(ctx.target);
        const a = await call(
          ctx.target,
          'GET',
          '/history?chainId=250&address=0x5B38Da6a701c568545dCfcB03FcB875f56beddC4',
          { token },
        );
        const b = await call(
          ctx.target,
          'GET',
          '/history?chainId=1111111&address=bc1qsenmhy2qmr56yyekv5lx59ch4pdnv6fhnhvlrg',
          { token },
        );
        return verdict(
          [
            ...(await expectError(ctx, 'GET /history', a, 400, 'UNSUPPORTED_CHAIN', 'chainId 250')),
            ...(await expectError(ctx, 'GET /history', b, 400, 'INVALID_PARAMETER', 'bitcoin address on 1111111')),
          ],
          b,
        );
      },
    }),
    defineCheck({
      id: 'wallet.sync.ciphertext_only',
      title:
        'Sync: a state sealed to another device (ML-KEM-768 + HKDF + AES-256-GCM) round-trips; plaintext is refused; other identities see nothing',
      source: { quote: 'so the server sees only ciphertext' },
      async run(ctx) {
        const { token, identity } = await login(ctx.target);
        const [laptop, phone] = [mlKem768.keygen(), mlKem768.keygen()];
        const [a, b] = [deviceIdOf(laptop.publicKey), deviceIdOf(phone.publicKey)];
        const found: string[] = [];
        for (const [id, kp, label] of [
          [a, laptop, 'laptop'],
          [b, phone, 'phone'],
        ] as const) {
          const put = await call(ctx.target, 'PUT', `/sync/devices/${id}`, {
            token,
            body: { kemPublicKey: toHex(kp.publicKey), label },
          });
          found.push(...(await problems(ctx, 'PUT /sync/devices/{deviceId}', put, 200, label)));
        }
        const state = new TextEncoder().encode(
          JSON.stringify({ accounts: [{ chainId: '1111111', index: 0 }], at: Date.now() }),
        );
        const sealed = sealSync(phone.publicKey, state, identity.svcId, a, b);
        const post = await call(ctx.target, 'POST', '/sync/envelopes', {
          token,
          body: { fromDevice: a, envelopes: [{ toDevice: b, data: Buffer.from(sealed).toString('base64') }] },
        });
        found.push(...(await problems(ctx, 'POST /sync/envelopes', post, 200)));
        const got = await call(ctx.target, 'GET', `/sync/envelopes?device=${b}`, { token });
        found.push(...(await problems(ctx, 'GET /sync/envelopes', got, 200)));
        const item = (got.json as { items?: { fromDevice: string; data: string }[] })?.items?.find(
          (i) => i.fromDevice === a,
        );
        if (!item) found.push('the envelope from the laptop is not listed for the phone');
        else if (
          Buffer.compare(
            Buffer.from(openSync(phone, new Uint8Array(Buffer.from(item.data, 'base64')), identity.svcId, a, b)),
            Buffer.from(state),
          ) !== 0
        )
          found.push('the opened state differs');
        const plain = await call(ctx.target, 'POST', '/sync/envelopes', {
          token,
          body: { fromDevice: a, envelopes: [{ toDevice: b, data: Buffer.from(state).toString('base64') }] },
        });
        found.push(
          ...(await expectError(ctx, 'POST /sync/envelopes', plain, 400, 'NOT_AN_ENVELOPE', 'plaintext state')),
        );
        const mismatch = await call(ctx.target, 'PUT', `/sync/devices/${'0'.repeat(16)}`, {
          token,
          body: { kemPublicKey: toHex(laptop.publicKey) },
        });
        found.push(
          ...(await expectError(
            ctx,
            'PUT /sync/devices/{deviceId}',
            mismatch,
            400,
            'DEVICE_ID_MISMATCH',
            'deviceId not the fingerprint',
          )),
        );
        const stranger = await login(ctx.target);
        const foreign = await call(ctx.target, 'GET', `/sync/envelopes?device=${b}`, { token: stranger.token });
        found.push(
          ...(await expectError(
            ctx,
            'GET /sync/envelopes',
            foreign,
            404,
            'DEVICE_NOT_FOUND',
            "another identity's token",
          )),
        );
        return verdict(found, got);
      },
    }),
    defineCheck({
      id: 'wallet.rate_limit.auth',
      title: 'More than 5 /auth/challenge requests in one second from one IP get 429 RATE_LIMITED with Retry-After',
      source: { decision: 'D-024' },
      async run(ctx) {
        const body = { address: '0x5B38Da6a701c568545dCfcB03FcB875f56beddC4', svcId: '0000000000000000' };
        const answers = await Promise.all(
          Array.from({ length: 12 }, () => call(ctx.target, 'POST', '/auth/challenge', { body, retry429: false })),
        );
        const limited = answers.find((r) => r.status === 429);
        if (!limited)
          return verdict([
            `expected a 429 among 12 simultaneous requests, got ${answers.map((r) => r.status).join(',')}`,
          ]);
        const found = await expectError(ctx, 'POST /auth/challenge', limited, 429, 'RATE_LIMITED');
        if (!limited.headers['retry-after']) found.push('429 without Retry-After');
        await new Promise((resolve) =>
          setTimeout(resolve, Math.max(1, Number(limited.headers['retry-after']) || 1) * 1000),
        );
        return verdict(found, limited);
      },
    }),
  ];
}
