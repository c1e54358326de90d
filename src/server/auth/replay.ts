/**
 * D-076: an accepted SVC-MLDSA signature is accepted once. The digests of accepted signatures are kept for
 * twice the skew window (a timestamp may be 30 s ahead or behind), in this process or, with REDIS_URL, in
 * Redis for every instance (D-170: `SET <key> 1 NX PX <window>`, one round trip, expired by Redis itself).
 */
import type { Redis } from 'ioredis';
import { ErrorCode, RestError } from '../http/errors.ts';

/** How long an accepted signature is remembered: the ±30 s window on both sides, 2 × SIGNATURE_SKEW_MS (D-076). */
export const REPLAY_WINDOW_MS = 60_000;

/** The key prefix of the replay digests in Redis. */
export const REPLAY_KEY_PREFIX = 'svckit:replay:';

/** Remembers accepted signatures by digest. */
export interface ReplayMemory {
  /** True the first time `digest` is offered within the window, false on every later offer. */
  firstUse(digest: string, now: number): Promise<boolean>;
}

/** The memory of this process alone: insertion order is time order, so expired entries are at the front. */
export class LocalReplayMemory implements ReplayMemory {
  private readonly seen = new Map<string, number>();

  /** See {@link ReplayMemory.firstUse}. */
  async firstUse(digest: string, now: number): Promise<boolean> {
    for (const [seen, at] of this.seen) {
      if (now - at <= REPLAY_WINDOW_MS) break;
      this.seen.delete(seen);
    }
    if (this.seen.has(digest)) return false;
    this.seen.set(digest, now);
    return true;
  }
}

/**
 * The memory every instance shares through Redis (D-170). When Redis does not answer, the request is refused
 * with 503 (fail closed, D-168): accepting it could accept a replay.
 */
export class RedisReplayMemory implements ReplayMemory {
  /** Uses the commands connection of the shared state. */
  constructor(private readonly redis: Redis) {}

  /** See {@link ReplayMemory.firstUse}; Redis's clock expires the key, so `now` is not needed here. */
  async firstUse(digest: string): Promise<boolean> {
    let answer: string | null;
    try {
      answer = await this.redis.set(`${REPLAY_KEY_PREFIX}${digest}`, '1', 'PX', REPLAY_WINDOW_MS, 'NX');
    } catch {
      throw new RestError(
        ErrorCode.UNAVAILABLE,
        'the shared replay store does not answer, so a signed request cannot be accepted now; try again later',
      );
    }
    return answer === 'OK';
  }
}
