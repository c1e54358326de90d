// Surface E tokens and records: session tokens that are forged, expired, unsigned (`alg: none`) or
// algorithm-confused (HS256 keyed with the service's public key) are refused (D-018); a third party verifies a
// token with the published JWKS and re-verifies the signed challenge from the authorisation record alone
// (spec: "a third party can verify that an action was authorised by the identity without trusting the
// service"); registration is idempotent, checks the fingerprint and refuses private material.
import { createPrivateKey } from 'node:crypto';
import { createLocalJWKSet, jwtVerify, SignJWT, UnsecuredJWT, type JWK } from 'jose';
import { verifyMessage, type Hex } from 'viem';
import { fromHex, mlDsa65, sha3_256, toHex } from '@svckit/sdk/crypto';
import type { Check, CheckContext } from '../../catalogue.ts';
import type { HttpResult } from '../../http.ts';
import { verdict } from '../define.ts';
import {
  call,
  defineCheck,
  expectError,
  jwtPart,
  login,
  newIdentity,
  problems,
  register,
  registrationProof,
  WALLET_REF,
} from './support.ts';

const THIRD_PARTY =
  'a third party can verify that an action was authorised by the identity without trusting the service';

/** GET /history with `token`; the answer must be 401 with `code`. */
async function refused(
  ctx: CheckContext,
  token: string,
  code: string,
  what: string,
): Promise<{ found: string[]; res: HttpResult }> {
  const res = await call(
    ctx.target,
    'GET',
    '/history?chainId=1111111&address=0x5B38Da6a701c568545dCfcB03FcB875f56beddC4',
    { token },
  );
  return { found: await expectError(ctx, 'GET /history', res, 401, code, what), res };
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** The token checks. */
export function walletTokenChecks(): Check[] {
  return [
    defineCheck({
      id: 'wallet.token.missing',
      title: 'GET /history without a session token is 401 UNAUTHENTICATED',
      source: { decision: 'D-066' },
      async run(ctx) {
        const res = await call(
          ctx.target,
          'GET',
          '/history?chainId=1111111&address=0x5B38Da6a701c568545dCfcB03FcB875f56beddC4',
        );
        return verdict(await expectError(ctx, 'GET /history', res, 401, 'UNAUTHENTICATED'), res);
      },
    }),
    defineCheck({
      id: 'wallet.token.forged',
      title:
        'Forged tokens are refused: altered claims, a flipped signature byte, or a signature by another ML-DSA-65 key under the same kid',
      source: { decision: 'D-018' },
      async run(ctx) {
        const { token } = await login(ctx.target);
        const [h, p, s] = token.split('.') as [string, string, string];
        const claims = jwtPart(token, 1);
        const sig = Buffer.from(s, 'base64url');
        sig[10] = sig[10]! ^ 0x01;
        const stranger = mlDsa65.keygen();
        const privateKey = createPrivateKey({
          key: Buffer.from(stranger.secretKey),
          format: 'raw-seed',
          asymmetricKeyType: 'ml-dsa-65',
        });
        const foreign = await new SignJWT(claims)
          .setProtectedHeader(jwtPart(token, 0) as { alg: string })
          .sign(privateKey);
        const found: string[] = [];
        let res: HttpResult | undefined;
        for (const [what, forged] of [
          ['altered sub claim', `${h}.${b64({ ...claims, sub: 'ffffffffffffffff' })}.${s}`],
          ['flipped signature byte', `${h}.${p}.${sig.toString('base64url')}`],
          ['signed by another key', foreign],
        ] as const) {
          const r = await refused(ctx, forged, 'INVALID_TOKEN', what);
          found.push(...r.found);
          res = r.res;
        }
        return verdict(found, res);
      },
    }),
    defineCheck({
      id: 'wallet.token.alg_none',
      title: 'An unsigned token (alg: none) with valid claims is refused with 401',
      source: { decision: 'D-018' },
      async run(ctx) {
        const { token } = await login(ctx.target);
        const claims = jwtPart(token, 1);
        const unsecured = new UnsecuredJWT(claims).encode();
        const found: string[] = [];
        const a = await refused(ctx, unsecured, 'INVALID_TOKEN', 'alg none, empty signature');
        // The same with the original signature kept and only the header changed.
        const b = await refused(
          ctx,
          `${b64({ alg: 'none', typ: 'JWT' })}.${token.split('.')[1]}.${token.split('.')[2]}`,
          'INVALID_TOKEN',
          'alg none, signature kept',
        );
        found.push(...a.found, ...b.found);
        return verdict(found, b.res);
      },
    }),
    defineCheck({
      id: 'wallet.token.hs256_public_key',
      title:
        'HS256 tokens keyed with the published ML-DSA-65 public key (raw bytes, the JWK pub text, the JWK JSON) are refused',
      source: { decision: 'D-018' },
      async run(ctx) {
        const { token } = await login(ctx.target);
        const jwks = (await call(ctx.target, 'GET', '/.well-known/jwks.json')).json as { keys: JWK[] };
        const key = jwks.keys.find((k) => k.kid === jwtPart(token, 0).kid) ?? jwks.keys[0]!;
        const claims = jwtPart(token, 1);
        const secrets = [
          Buffer.from(String(key.pub), 'base64url'),
          Buffer.from(String(key.pub)),
          Buffer.from(JSON.stringify(key)),
        ];
        const found: string[] = [];
        let res: HttpResult | undefined;
        for (const [i, secret] of secrets.entries()) {
          const forged = await new SignJWT(claims)
            .setProtectedHeader({ alg: 'HS256', typ: 'JWT', kid: key.kid! })
            .sign(new Uint8Array(secret));
          const r = await refused(ctx, forged, 'INVALID_TOKEN', `HS256 key variant ${i + 1}`);
          found.push(...r.found);
          res = r.res;
        }
        return verdict(found, res);
      },
    }),
    defineCheck({
      id: 'wallet.token.expired',
      title: 'A token past exp (15 minutes) is refused with 401 TOKEN_EXPIRED',
      source: { decision: 'D-018' },
      needs: WALLET_REF,
      async run(ctx) {
        const { token } = await login(ctx.target);
        ctx.target.reference!.advanceClock(15 * 60_000 + 1000);
        const { found, res } = await refused(ctx, token, 'TOKEN_EXPIRED', 'after 15 minutes');
        return verdict(found, res);
      },
    }),
    defineCheck({
      id: 'wallet.jwks.third_party_verify',
      title: 'A third party verifies a session token with /.well-known/jwks.json alone (ML-DSA-65, kid)',
      source: { quote: THIRD_PARTY },
      async run(ctx) {
        const { token, identity } = await login(ctx.target);
        const res = await call(ctx.target, 'GET', '/.well-known/jwks.json');
        const found = await problems(ctx, 'GET /.well-known/jwks.json', res, 200);
        if (found.length) return verdict(found, res);
        const origin = new URL(ctx.target.wallet!).origin;
        try {
          const { payload } = await jwtVerify(token, createLocalJWKSet(res.json as { keys: JWK[] }), {
            algorithms: ['ML-DSA-65'],
            issuer: origin,
            audience: origin,
            currentDate: new Date(Number(jwtPart(token, 1).iat) * 1000),
          });
          if (payload.sub !== identity.svcId) found.push(`sub expected ${identity.svcId}, got ${String(payload.sub)}`);
        } catch (error) {
          found.push(`the token does not verify with the published JWKS: ${(error as Error).message}`);
        }
        return verdict(found, res);
      },
    }),
    defineCheck({
      id: 'wallet.record.third_party_verify',
      title:
        "The token's chl names an authorisation record whose signed challenge a third party re-verifies with public values only",
      source: { quote: THIRD_PARTY },
      async run(ctx) {
        const { token, identity, message } = await login(ctx.target);
        const nonce = String(jwtPart(token, 1).chl);
        const res = await call(ctx.target, 'GET', `/auth/records/${nonce}`);
        const found = await problems(ctx, 'GET /auth/records/{nonce}', res, 200);
        if (found.length) return verdict(found, res);
        const r = res.json as {
          svcId: string;
          address: string;
          message: string;
          ecdsaSig: string;
          pqSig: string;
          pqPublicKey: string;
        };
        const pk = fromHex(r.pqPublicKey.toLowerCase());
        if (toHex(sha3_256(pk).subarray(0, 8)) !== r.svcId || r.svcId !== identity.svcId)
          found.push('svcId is not the fingerprint of pqPublicKey, or not the login identity');
        if (r.message !== message) found.push('the record does not hold the exact challenge message');
        if (!mlDsa65.verify(pk, new TextEncoder().encode(r.message), fromHex(r.pqSig.toLowerCase())))
          found.push('pqSig does not verify over message with pqPublicKey');
        if (!(await verifyMessage({ address: r.address as Hex, message: r.message, signature: r.ecdsaSig as Hex })))
          found.push('ecdsaSig does not verify over message for address');
        const missing = await call(ctx.target, 'GET', `/auth/records/${'0'.repeat(32)}`);
        found.push(
          ...(await expectError(ctx, 'GET /auth/records/{nonce}', missing, 404, 'NOT_FOUND', 'unknown nonce')),
        );
        return verdict(found, res);
      },
    }),
    defineCheck({
      id: 'wallet.register.idempotent',
      title: 'Registering the same identity twice answers isNew true, then isNew false',
      source: { decision: 'D-069' },
      async run(ctx) {
        const identity = newIdentity();
        const first = await register(ctx.target, identity);
        const second = await register(ctx.target, identity, {
          keys: [{ chainId: '1111111', address: identity.chain.address }],
        });
        const found = [
          ...(await problems(ctx, 'POST /wallets/register', first, 200, 'first')),
          ...(await problems(ctx, 'POST /wallets/register', second, 200, 'second')),
        ];
        const a = first.json as { ok?: boolean; isNew?: boolean };
        const b = second.json as { ok?: boolean; isNew?: boolean };
        if (a.ok !== true || a.isNew !== true)
          found.push(`first registration expected {ok: true, isNew: true}, got ${first.text}`);
        if (b.ok !== true || b.isNew !== false)
          found.push(`second registration expected {ok: true, isNew: false}, got ${second.text}`);
        return verdict(found, second);
      },
    }),
    defineCheck({
      id: 'wallet.register.svc_id_mismatch',
      title: 'An svcId that is not the fingerprint of pqPublicKey is refused with 400 SVC_ID_MISMATCH',
      source: {
        quote:
          "Identity is the fingerprint of the client's ML-DSA-65 public key (FIPS 204), 16 hexadecimal characters.",
      },
      async run(ctx) {
        const identity = newIdentity();
        const other = newIdentity();
        const res = await call(ctx.target, 'POST', '/wallets/register', {
          body: { ...registrationProof(identity), svcId: other.svcId },
        });
        return verdict(await expectError(ctx, 'POST /wallets/register', res, 400, 'SVC_ID_MISMATCH'), res);
      },
    }),
    defineCheck({
      id: 'wallet.register.private_material',
      title:
        'Registration refuses private material: mnemonic, seed, privateKey, secretKey, xprv fields, and a recovery phrase as a value',
      source: { quote: 'Registration sends only public values.' },
      async run(ctx) {
        const identity = newIdentity();
        const phrase = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
        const found: string[] = [];
        let res: HttpResult | undefined;
        const cases: [string, Record<string, unknown>][] = [
          ['mnemonic', { mnemonic: phrase }],
          ['seed', { seed: toHex(new Uint8Array(64)) }],
          ['privateKey', { privateKey: `0x${'11'.repeat(32)}` }],
          ['secretKey', { secretKey: toHex(identity.pq.secretKey) }],
          [
            'xprv',
            {
              xprv: 'xprv9s21ZrQH143K3GJpoapnV8SFfukcVBSfeCficPSGfubmSFDxo1kuHnLisriDvSnRRuL2Qrg5ggqHKNVpxR86QEC8w35uxmGoggxtQTPvfUu',
            },
          ],
          ['a phrase in keys', { keys: [{ chainId: '1111111', address: phrase }] }],
        ];
        for (const [what, extra] of cases) {
          res = await register(ctx.target, identity, extra);
          found.push(...(await expectError(ctx, 'POST /wallets/register', res, 400, 'PRIVATE_MATERIAL_REFUSED', what)));
        }
        return verdict(found, res);
      },
    }),
  ];
}
