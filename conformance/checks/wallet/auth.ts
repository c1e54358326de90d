// Surface E sessions (spec "E. Wallet session API", Authentication steps 1 to 3): the full login with real
// keys, each way a login must fail — a wrong classical or post-quantum signature, a signature by another
// identity, a reused or expired nonce, an unregistered svcId — and logins with Bitcoin and Tron addresses
// (D-035). Every answer is validated against specs/wallet.openapi.yaml.
import type { Check } from '../../catalogue.ts';
import { verdict } from '../define.ts';
import {
  bitcoinSigner,
  challenge,
  challenged,
  defineCheck,
  evmSigner,
  expectError,
  jwtPart,
  login,
  newIdentity,
  pqSign,
  problems,
  register,
  tronSigner,
  verify,
  WALLET_REF,
  call,
} from './support.ts';

const TWO_KEYS =
  'A session is obtained by proving control of two keys (one classical, one post-quantum) over a fresh challenge.';

/** The login checks. */
export function walletAuthChecks(): Check[] {
  return [
    defineCheck({
      id: 'wallet.login.full_flow',
      title:
        'Register, challenge, both signatures, verify: an ML-DSA-65 session token with the D-005 claims, accepted as Bearer',
      source: {
        quote:
          'The client posts address, svcId, ecdsaSig and pqSig to /auth/verify and receives a session token (JWT).',
      },
      async run(ctx) {
        const identity = newIdentity();
        const found: string[] = [];
        const reg = await register(ctx.target, identity);
        found.push(...(await problems(ctx, 'POST /wallets/register', reg, 200)));
        const ch = await challenge(ctx.target, identity);
        found.push(...(await problems(ctx, 'POST /auth/challenge', ch.res, 200)));
        const res = await verify(
          ctx.target,
          identity,
          await identity.chain.sign(ch.message),
          pqSign(identity, ch.message),
        );
        found.push(...(await problems(ctx, 'POST /auth/verify', res, 200)));
        if (res.status === 200) {
          const token = (res.json as { token: string }).token;
          const header = jwtPart(token, 0);
          const claims = jwtPart(token, 1);
          if (header.alg !== 'ML-DSA-65' || header.typ !== 'JWT' || typeof header.kid !== 'string')
            found.push(`token header expected {alg: ML-DSA-65, typ: JWT, kid}, got ${JSON.stringify(header)}`);
          if (claims.sub !== identity.svcId)
            found.push(`claim sub expected ${identity.svcId}, got ${JSON.stringify(claims.sub)}`);
          if (String(claims.addr).toLowerCase() !== identity.chain.address.toLowerCase())
            found.push(`claim addr expected ${identity.chain.address}, got ${JSON.stringify(claims.addr)}`);
          if (claims.chl !== ch.nonce)
            found.push(`claim chl expected the nonce ${ch.nonce}, got ${JSON.stringify(claims.chl)}`);
          // D-018: 15 minutes, no longer.
          if (Number(claims.exp) - Number(claims.iat) !== 900 || claims.nbf !== claims.iat)
            found.push(`expected exp = iat + 900 and nbf = iat, got ${JSON.stringify(claims)}`);
          const history = await call(ctx.target, 'GET', `/history?chainId=1111111&address=${identity.chain.address}`, {
            token,
          });
          found.push(...(await problems(ctx, 'GET /history', history, 200, 'with the token as Bearer')));
        }
        return verdict(found, res);
      },
    }),
    defineCheck({
      id: 'wallet.login.challenge_message',
      title:
        'The challenge is a fresh 128-bit nonce and an EIP-4361 message binding domain, address, chain, nonce, times and svc:{svcId}',
      source: { decision: 'D-043' },
      async run(ctx) {
        const identity = newIdentity();
        await register(ctx.target, identity);
        const first = await challenge(ctx.target, identity);
        const second = await challenge(ctx.target, identity);
        const found: string[] = [];
        if (first.nonce === second.nonce) found.push('two challenges gave the same nonce');
        const lines = second.message.split('\n');
        const host = new URL(ctx.target.wallet!).host;
        const expect: [number, RegExp][] = [
          [0, new RegExp(`^${host.replace(/[.[\]]/g, '\\$&')} wants you to sign in with your account:$`)],
          [1, new RegExp(`^${identity.chain.address}$`, 'i')],
          [7, /^Chain ID: 1111111$/],
          [8, new RegExp(`^Nonce: ${second.nonce}$`)],
          [12, new RegExp(`^- svc:${identity.svcId}$`)],
        ];
        for (const [i, pattern] of expect)
          if (!pattern.test(lines[i] ?? ''))
            found.push(`line ${i + 1} expected ${pattern}, got ${JSON.stringify(lines[i])}`);
        const issued = Date.parse(lines[9]?.replace('Issued At: ', '') ?? '');
        const expires = Date.parse(lines[10]?.replace('Expiration Time: ', '') ?? '');
        if (expires - issued !== 5 * 60_000)
          found.push(`expected Expiration Time = Issued At + 5 minutes, got ${lines[9]} / ${lines[10]}`);
        return verdict(found, second.res);
      },
    }),
    defineCheck({
      id: 'wallet.login.wrong_ecdsa_sig',
      title: 'A classical signature over another message is refused with 401 INVALID_SIGNATURE',
      source: { quote: TWO_KEYS },
      async run(ctx) {
        const { identity, message } = await challenged(ctx.target);
        const res = await verify(
          ctx.target,
          identity,
          await identity.chain.sign(`${message}!`),
          pqSign(identity, message),
        );
        return verdict(await expectError(ctx, 'POST /auth/verify', res, 401, 'INVALID_SIGNATURE'), res);
      },
    }),
    defineCheck({
      id: 'wallet.login.wrong_pq_sig',
      title: 'An ML-DSA-65 signature over another message is refused with 401 INVALID_SIGNATURE',
      source: { quote: TWO_KEYS },
      async run(ctx) {
        const { identity, message } = await challenged(ctx.target);
        const res = await verify(
          ctx.target,
          identity,
          await identity.chain.sign(message),
          pqSign(identity, `${message}!`),
        );
        return verdict(await expectError(ctx, 'POST /auth/verify', res, 401, 'INVALID_SIGNATURE'), res);
      },
    }),
    defineCheck({
      id: 'wallet.login.other_identity',
      title:
        'Signatures by another identity (its ML-DSA-65 key, or its chain key) over the right message are refused with 401',
      source: { quote: TWO_KEYS },
      async run(ctx) {
        const identity = newIdentity();
        const other = newIdentity();
        await register(ctx.target, identity);
        await register(ctx.target, other);
        const found: string[] = [];
        let c = await challenge(ctx.target, identity);
        let res = await verify(ctx.target, identity, await identity.chain.sign(c.message), pqSign(other, c.message));
        found.push(
          ...(await expectError(
            ctx,
            'POST /auth/verify',
            res,
            401,
            'INVALID_SIGNATURE',
            "another identity's ML-DSA-65 key",
          )),
        );
        c = await challenge(ctx.target, identity);
        res = await verify(ctx.target, identity, await other.chain.sign(c.message), pqSign(identity, c.message));
        found.push(
          ...(await expectError(
            ctx,
            'POST /auth/verify',
            res,
            401,
            'INVALID_SIGNATURE',
            "another identity's chain key",
          )),
        );
        return verdict(found, res);
      },
    }),
    defineCheck({
      id: 'wallet.login.nonce_reused',
      title:
        'A nonce is single-use: verifying the same signed challenge twice is 401 CHALLENGE_EXPIRED the second time; a failed attempt does not use it',
      source: { decision: 'D-145' },
      async run(ctx) {
        const { identity, message } = await challenged(ctx.target);
        const ecdsaSig = await identity.chain.sign(message);
        const pqSig = pqSign(identity, message);
        const first = await verify(ctx.target, identity, ecdsaSig, pqSig);
        const found = await problems(ctx, 'POST /auth/verify', first, 200, 'first use');
        const again = await verify(ctx.target, identity, ecdsaSig, pqSig);
        found.push(...(await expectError(ctx, 'POST /auth/verify', again, 401, 'CHALLENGE_EXPIRED', 'second use')));
        // D-145: a failed verify consumes nothing (else anyone knowing the public address and svcId could burn
        // the owner's challenge); the right signatures then verify once.
        const c = await challenge(ctx.target, identity);
        const failed = await verify(
          ctx.target,
          identity,
          await identity.chain.sign(c.message),
          pqSign(identity, `${c.message}x`),
        );
        found.push(...(await expectError(ctx, 'POST /auth/verify', failed, 401, 'INVALID_SIGNATURE', 'a wrong pqSig')));
        const ecdsa2 = await identity.chain.sign(c.message);
        const pq2 = pqSign(identity, c.message);
        const retry = await verify(ctx.target, identity, ecdsa2, pq2);
        found.push(...(await problems(ctx, 'POST /auth/verify', retry, 200, 'after a failed attempt')));
        const third = await verify(ctx.target, identity, ecdsa2, pq2);
        found.push(
          ...(await expectError(ctx, 'POST /auth/verify', third, 401, 'CHALLENGE_EXPIRED', 'after its one use')),
        );
        return verdict(found, third);
      },
    }),
    defineCheck({
      id: 'wallet.login.challenge_expired',
      title: 'A challenge answered after its 5 minutes is refused with 401 CHALLENGE_EXPIRED',
      source: { decision: 'D-043' },
      needs: WALLET_REF,
      async run(ctx) {
        const { identity, message } = await challenged(ctx.target);
        ctx.target.reference!.advanceClock(5 * 60_000 + 1000);
        const res = await verify(ctx.target, identity, await identity.chain.sign(message), pqSign(identity, message));
        return verdict(await expectError(ctx, 'POST /auth/verify', res, 401, 'CHALLENGE_EXPIRED'), res);
      },
    }),
    defineCheck({
      id: 'wallet.login.unregistered_svc_id',
      title: 'A challenge for an svcId nobody registered is 404 SVC_ID_NOT_REGISTERED',
      source: { decision: 'D-068' },
      async run(ctx) {
        const identity = newIdentity();
        const res = await call(ctx.target, 'POST', '/auth/challenge', {
          body: { address: identity.chain.address, svcId: identity.svcId },
        });
        return verdict(await expectError(ctx, 'POST /auth/challenge', res, 404, 'SVC_ID_NOT_REGISTERED'), res);
      },
    }),
    defineCheck({
      id: 'wallet.login.chain_schemes',
      title: 'Bitcoin (BIP-137, P2WPKH) and Tron (TIP-191) addresses log in with their own message schemes; EVM too',
      source: { decision: 'D-035' },
      async run(ctx) {
        const found: string[] = [];
        for (const [name, signer] of [
          ['evm', evmSigner()],
          ['bitcoin', bitcoinSigner()],
          ['tron', tronSigner()],
        ] as const) {
          try {
            const { token } = await login(ctx.target, newIdentity(signer));
            if (String(jwtPart(token, 1).addr) !== signer.address && name !== 'evm')
              found.push(`${name}: claim addr expected ${signer.address}`);
          } catch (error) {
            found.push(`${name}: ${(error as Error).message}`);
          }
        }
        return verdict(found);
      },
    }),
  ];
}
