// D-145: sign-in challenges are keyed by nonce and several may be outstanding per (address, svcId), which
// are public. A third party that asks a challenge for the victim's (address, svcId) and sends a bad verify
// neither replaces nor consumes the victim's challenge; the victim's own signatures verify once, only once.
// D-208: only an address registered to the svcId gets a challenge, and a full bound refuses (429) rather
// than evict a challenge younger than the minimum age, so a stranger's requests never end the owner's.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  call,
  challenge,
  evmSigner,
  type Identity,
  newIdentity,
  pqSign,
  register,
  verify,
} from '../../conformance/checks/wallet/support.ts';
import { referenceTarget } from '../../conformance/targets/reference.ts';
import type { Target } from '../../conformance/targets/target.ts';
import { CHALLENGE_MIN_AGE_MS, CHALLENGES_PER_ADDRESS_PER_IP } from '../../src/server/wallet/auth-store.ts';

let target: Target;
beforeAll(async () => {
  // The /auth/* request rate (D-024) is not the subject here; lifted so a burst is answered at once.
  target = await referenceTarget({ env: { SVC_RATE_LIMIT_WALLET_AUTH: '0' } });
});
afterAll(async () => target?.close?.());

/** Registers `identity` with its own chain address (D-147 keys). */
async function registerWithAddress(identity: Identity): Promise<void> {
  const res = await register(target, identity, { keys: [{ chainId: '1111111', address: identity.chain.address }] });
  expect(res.status, res.text).toBe(200);
}

/** POST /auth/challenge for (address, svcId), unpaced: a 429 is returned, not waited out. */
const ask = (address: string, svcId: string) =>
  call(target, 'POST', '/auth/challenge', { body: { address, svcId }, retry429: false });

/** Both of `identity`'s signatures over `message`, posted to /auth/verify. */
const signIn = async (identity: Identity, message: string) =>
  verify(target, identity, await identity.chain.sign(message), pqSign(identity, message));

describe('sign-in challenges (D-145)', () => {
  it("a third party's challenge and failed verify for the same (address, svcId) leave the victim's challenge usable exactly once", async () => {
    const victim = newIdentity();
    const attacker = newIdentity();
    await registerWithAddress(victim);
    const own = await challenge(target, victim);
    // The attacker knows only public values: it asks a challenge for the victim's address and svcId...
    const theirs = await challenge(target, victim);
    expect(theirs.nonce).not.toBe(own.nonce);
    // ...and posts signatures it can make (its own keys) over that challenge, and junk.
    const bad = await verify(
      target,
      victim,
      await attacker.chain.sign(theirs.message),
      pqSign(attacker, theirs.message),
    );
    expect(bad.status).toBe(401);
    expect(bad.json).toMatchObject({ code: 'INVALID_SIGNATURE' });
    const junk = await verify(target, victim, `0x${'11'.repeat(65)}`, '00'.repeat(3309));
    expect(junk.status).toBe(401);
    // The victim's signatures over its own message still log in, once.
    const ecdsaSig = await victim.chain.sign(own.message);
    const pqSig = pqSign(victim, own.message);
    const first = await verify(target, victim, ecdsaSig, pqSig);
    expect(first.status, first.text).toBe(200);
    const claims = JSON.parse(
      Buffer.from((first.json as { token: string }).token.split('.')[1]!, 'base64url').toString('utf8'),
    ) as { chl: string };
    expect(claims.chl).toBe(own.nonce);
    const replay = await verify(target, victim, ecdsaSig, pqSig);
    // Refused: the attacker's challenge is still outstanding, but the victim's signatures sign none left.
    expect(replay.status).toBe(401);
    expect(replay.json).toMatchObject({ code: 'INVALID_SIGNATURE' });
  });
});

describe('challenge bounds (D-208)', () => {
  it("20 challenges asked by a stranger leave the owner's challenge valid", async () => {
    const owner = newIdentity();
    await registerWithAddress(owner);
    const own = await challenge(target, owner);
    // The stranger knows the svcId: ten requests with an address of its own, ten with the owner's (public).
    const stranger = evmSigner().address;
    const answers = [];
    for (let i = 0; i < 10; i++) answers.push(await ask(stranger, owner.svcId));
    for (let i = 0; i < 10; i++) answers.push(await ask(owner.chain.address, owner.svcId));
    expect(answers.slice(0, 10).map((r) => r.status)).toEqual(Array(10).fill(404));
    const refused = answers.slice(10).filter((r) => r.status === 429);
    // This client already holds the owner's one; the rest of its share, then 429 with no eviction.
    expect(answers.slice(10).filter((r) => r.status === 200)).toHaveLength(CHALLENGES_PER_ADDRESS_PER_IP - 1);
    expect(refused).toHaveLength(10 - (CHALLENGES_PER_ADDRESS_PER_IP - 1));
    expect(refused[0]!.json).toMatchObject({ code: 'RATE_LIMITED' });
    expect(Number(refused[0]!.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(refused[0]!.headers['retry-after'])).toBeLessThanOrEqual(CHALLENGE_MIN_AGE_MS / 1000);
    const ok = await signIn(owner, own.message);
    expect(ok.status, ok.text).toBe(200);
  });

  it('answers an unregistered address exactly as an unknown svcId, whoever else registered it', async () => {
    const owner = newIdentity();
    const other = newIdentity();
    await registerWithAddress(owner);
    await registerWithAddress(other);
    const fresh = evmSigner().address;
    const unknownSvcId = await ask(owner.chain.address, '0123456789abcdef');
    const neverSeen = await ask(fresh, owner.svcId);
    // The other identity's address: registered, but not to this svcId.
    const othersAddress = await ask(other.chain.address, owner.svcId);
    const texts = [
      [unknownSvcId, owner.chain.address, '0123456789abcdef'],
      [neverSeen, fresh, owner.svcId],
      [othersAddress, other.chain.address, owner.svcId],
    ] as const;
    // One status, one code and one text but for the values the request itself named.
    const shapes = texts.map(([res, address, svcId]) => {
      expect(res.status).toBe(404);
      expect(res.json).toMatchObject({ code: 'SVC_ID_NOT_REGISTERED' });
      return (res.json as { error: string }).error.replace(address, '<address>').replace(svcId, '<svcId>');
    });
    expect(new Set(shapes).size).toBe(1);
  });

  it('a full bound gives way only by a challenge older than the minimum age', async () => {
    const owner = newIdentity();
    await registerWithAddress(owner);
    const issued = [];
    for (let i = 0; i < CHALLENGES_PER_ADDRESS_PER_IP; i++) issued.push(await challenge(target, owner));
    const full = await ask(owner.chain.address, owner.svcId);
    expect(full.status).toBe(429);
    target.reference!.advanceClock(CHALLENGE_MIN_AGE_MS + 1_000);
    const next = await ask(owner.chain.address, owner.svcId);
    expect(next.status, next.text).toBe(200);
    // The oldest gave way; the others and the new one still sign in.
    expect((await signIn(owner, issued[0]!.message)).status).toBe(401);
    expect((await signIn(owner, issued[1]!.message)).status).toBe(200);
    expect((await signIn(owner, (next.json as { message: string }).message)).status).toBe(200);
  });
});
