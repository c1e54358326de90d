// D-147: POST /wallets/register is signed by the identity key (`proof` over the request), so nobody can
// attach addresses to someone else's svcId; an identity holds at most 64 chain addresses.
import { beforeAll, describe, expect, it } from 'vitest';
import { call, challenge, newIdentity, evmSigner, registrationProof } from '../../conformance/checks/wallet/support.ts';
import { sharedReferenceTarget } from '../support/shared-stack.ts';
import type { Target } from '../../conformance/targets/target.ts';
import { ADDRESSES_PER_IDENTITY } from '../../src/server/wallet/auth-store.ts';

let target: Target;
beforeAll(async () => {
  target = await sharedReferenceTarget();
});

const register = (body: Record<string, unknown>) => call(target, 'POST', '/wallets/register', { body });
/** Whether the svcId is registered: a challenge for an unknown one is 404 (D-068). */
const registered = async (identity: ReturnType<typeof newIdentity>) =>
  (await call(target, 'POST', '/auth/challenge', { body: { address: identity.chain.address, svcId: identity.svcId } }))
    .status !== 404;

describe('registration proof (D-147)', () => {
  it('refuses a body without proof, a proof by another key, and a stale proof, storing nothing', async () => {
    const victim = newIdentity();
    const attacker = newIdentity();
    const signed = registrationProof(victim);
    const { proof: _proof, issuedAt: _issuedAt, ...bare } = signed;
    expect((await register(bare)).status).toBe(400);
    // The attacker signs with its own key but names the victim's public key and svcId.
    const forged = { ...registrationProof(attacker), svcId: victim.svcId, pqPublicKey: signed.pqPublicKey };
    const wrongKey = await register(forged);
    expect(wrongKey.status).toBe(401);
    expect(wrongKey.json).toMatchObject({ code: 'INVALID_SIGNATURE' });
    const stale = await register(
      registrationProof(victim, undefined, new Date(Date.now() - 10 * 60_000).toISOString()),
    );
    expect(stale.status).toBe(401);
    expect(stale.json).toMatchObject({ code: 'PROOF_EXPIRED' });
    expect(await registered(victim)).toBe(false);
  });

  it('refuses addresses added to an existing svcId without the identity key, and the proof binds the keys', async () => {
    const victim = newIdentity();
    expect((await register(registrationProof(victim))).status).toBe(200);
    const attackerAddress = evmSigner().address;
    const keys = [{ chainId: '1111111', address: attackerAddress }];
    // A proof the victim made for no keys, replayed with the attacker's address added.
    const replayed = { ...registrationProof(victim), keys };
    const res = await register(replayed);
    expect(res.status).toBe(401);
    expect(res.json).toMatchObject({ code: 'INVALID_SIGNATURE' });
    // The victim's own signed registration of an address works.
    const ok = await register(registrationProof(victim, [{ chainId: '1111111', address: victim.chain.address }]));
    expect(ok.status, ok.text).toBe(200);
    expect(await challenge(target, victim)).toMatchObject({ nonce: expect.any(String) });
  });

  it(`refuses more than ${ADDRESSES_PER_IDENTITY} chain addresses per identity with 409 QUOTA_EXCEEDED, storing none of them`, async () => {
    const identity = newIdentity();
    const addresses = (n: number) =>
      Array.from({ length: n }, () => ({ chainId: '1111111', address: evmSigner().address }));
    const first = await register(registrationProof(identity, addresses(ADDRESSES_PER_IDENTITY - 1)));
    expect(first.status, first.text).toBe(200);
    const over = await register(registrationProof(identity, addresses(2)));
    expect(over.status).toBe(409);
    expect(over.json).toMatchObject({
      code: 'QUOTA_EXCEEDED',
      error: expect.stringContaining(`at most ${ADDRESSES_PER_IDENTITY}`),
    });
    // Nothing of the refused request was kept: exactly one more address still fits.
    const last = await register(registrationProof(identity, addresses(1)));
    expect(last.status, last.text).toBe(200);
    expect((await register(registrationProof(identity, addresses(1)))).status).toBe(409);
  });
});
