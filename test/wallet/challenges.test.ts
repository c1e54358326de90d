// D-145: sign-in challenges are keyed by nonce and several may be outstanding per (address, svcId), which
// are public. A third party that asks a challenge for the victim's (address, svcId) and sends a bad verify
// neither replaces nor consumes the victim's challenge; the victim's own signatures verify once, only once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { challenge, newIdentity, pqSign, register, verify } from '../../conformance/checks/wallet/support.ts';
import { referenceTarget } from '../../conformance/targets/reference.ts';
import type { Target } from '../../conformance/targets/target.ts';
import { CHALLENGES_PER_IDENTITY } from '../../src/server/wallet/auth-store.ts';

let target: Target;
beforeAll(async () => {
  target = await referenceTarget();
});
afterAll(async () => target?.close?.());

describe('sign-in challenges (D-145)', () => {
  it("a third party's challenge and failed verify for the same (address, svcId) leave the victim's challenge usable exactly once", async () => {
    const victim = newIdentity();
    const attacker = newIdentity();
    expect((await register(target, victim)).status).toBe(200);
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

  it(`keeps at most ${CHALLENGES_PER_IDENTITY} outstanding per svcId: the oldest gives way, the newest still verify`, async () => {
    const identity = newIdentity();
    expect((await register(target, identity)).status).toBe(200);
    const issued = [];
    for (let i = 0; i <= CHALLENGES_PER_IDENTITY; i++) issued.push(await challenge(target, identity));
    const oldest = issued[0]!;
    const gone = await verify(
      target,
      identity,
      await identity.chain.sign(oldest.message),
      pqSign(identity, oldest.message),
    );
    expect(gone.status).toBe(401);
    const newest = issued.at(-1)!;
    const ok = await verify(
      target,
      identity,
      await identity.chain.sign(newest.message),
      pqSign(identity, newest.message),
    );
    expect(ok.status, ok.text).toBe(200);
  });
});
