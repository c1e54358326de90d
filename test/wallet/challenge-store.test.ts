// D-208 on the challenge store (real PGlite, or PostgreSQL under test:postgres): the bounds per (svcId,
// address) and client IP, per (svcId, address) and per client IP, told apart by the IP each challenge came
// from, which the HTTP tests cannot vary (every request there comes from loopback).
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { RestError } from '../../src/server/http/errors.ts';
import {
  CHALLENGE_MIN_AGE_MS,
  CHALLENGES_PER_ADDRESS,
  CHALLENGES_PER_ADDRESS_PER_IP,
  CHALLENGES_PER_IP,
  outstandingChallenges,
  putChallenge,
} from '../../src/server/wallet/auth-store.ts';
import { CHALLENGE_LIFETIME_MS } from '../../src/server/wallet/challenge.ts';
import { registerFreshDatabase } from '../storage/fresh-database.ts';

const fresh = registerFreshDatabase('challenge_store');
const T0 = Date.UTC(2026, 10, 21, 9, 30);

/** Stores a challenge for (svcId, address) from `ip` at `now`; the RestError when refused. */
async function put(svcId: string, address: string, ip: string, now: number): Promise<string | RestError> {
  const nonce = randomBytes(16).toString('hex');
  const row = { svcId, address, ip, nonce, message: `m ${nonce}`, expiresAt: new Date(now + CHALLENGE_LIFETIME_MS) };
  try {
    await putChallenge(fresh.database.db, row, now, CHALLENGE_LIFETIME_MS);
    return nonce;
  } catch (error) {
    if (error instanceof RestError) return error;
    throw error;
  }
}

const outstanding = async (svcId: string, address: string, now: number) =>
  (await outstandingChallenges(fresh.database.db, address, svcId, new Date(now))).map((c) => c.nonce);

describe('challenge store bounds (D-208)', () => {
  it("one client IP holds at most its share of an address; other clients' challenges stay; full means 429, not eviction", async () => {
    const svcId = '1111111111111111';
    const address = '0x5B38Da6a701c568545dCfcB03FcB875f56beddC4';
    const owner = await put(svcId, address, '198.51.100.7', T0);
    expect(typeof owner).toBe('string');
    const stranger = [];
    for (let i = 1; i <= 20; i++) stranger.push(await put(svcId, address, '203.0.113.9', T0 + i));
    expect(stranger.filter((r) => typeof r === 'string')).toHaveLength(CHALLENGES_PER_ADDRESS_PER_IP);
    const refusal = stranger.find((r) => r instanceof RestError)!;
    expect(refusal).toMatchObject({ code: 'RATE_LIMITED', headers: { 'retry-after': '60' } });
    // Other clients fill the address's remaining slots; then the address is full and nothing is young enough.
    let ip = 1;
    while ((await outstanding(svcId, address, T0)).length < CHALLENGES_PER_ADDRESS)
      expect(typeof (await put(svcId, address, `192.0.2.${ip++}`, T0 + 100))).toBe('string');
    expect(await put(svcId, address, '192.0.2.200', T0 + 1_000)).toMatchObject({ code: 'RATE_LIMITED' });
    expect(await outstanding(svcId, address, T0 + 1_000)).toContain(owner);
    // Once the oldest (the owner's) is past the minimum age, a new request may take its place.
    const later = T0 + CHALLENGE_MIN_AGE_MS;
    expect(typeof (await put(svcId, address, '192.0.2.200', later))).toBe('string');
    const left = await outstanding(svcId, address, later);
    expect(left).toHaveLength(CHALLENGES_PER_ADDRESS);
    expect(left).not.toContain(owner);
  });

  it(`one client IP holds at most ${CHALLENGES_PER_IP} challenges in all`, async () => {
    const ip = '203.0.113.50';
    const address = (i: number) => `0x${i.toString(16).padStart(40, '0')}`;
    for (let i = 0; i < CHALLENGES_PER_IP; i++)
      expect(typeof (await put('2222222222222222', address(i), ip, T0))).toBe('string');
    expect(await put('2222222222222222', address(CHALLENGES_PER_IP), ip, T0)).toMatchObject({
      code: 'RATE_LIMITED',
    });
    expect(typeof (await put('2222222222222222', address(CHALLENGES_PER_IP), '203.0.113.51', T0))).toBe('string');
  });
});
