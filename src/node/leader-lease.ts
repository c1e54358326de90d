/**
 * The block producer's leader lease (D-183): of several `svckit serve` instances on one database and one
 * chain node, only the holder of this lease seals blocks and casts the QBFT emulation's votes; the others
 * follow the head. The lease is a row (`leases`) with the holder's id and an expiry on the database's clock,
 * taken or renewed by one statement every third of its length. A holder that cannot renew (its database
 * connection lost) stops counting itself leader once a full length has passed since its last renewal began,
 * which is no later than the row expires; another instance takes the row over after it expires. So a dead
 * leader is replaced within one length plus one renewal period. One instance alone always holds it.
 */
import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { sql } from 'drizzle-orm';
import type { Database } from '../storage/database.ts';
import { leases } from '../storage/schema.ts';

/** The name of the block producer's lease row. */
export const BLOCK_PRODUCER_LEASE = 'block-producer';

/** A lease this instance tries to hold for as long as it runs. */
export class LeaderLease extends EventEmitter<{ change: [boolean] }> {
  /** This instance's holder id: random per process, so a restarted instance is a new holder. */
  readonly holder = randomUUID();
  private timer: NodeJS.Timeout | undefined;
  /** When the last successful renewal was sent (performance.now()); undefined: not held. */
  private renewedAt: number | undefined;
  private running: Promise<void> | undefined;
  private held = false;

  /** A lease named `name` of `lengthMs` on `db`; call start() to contend for it. */
  constructor(
    private readonly db: Database,
    readonly lengthMs: number,
    readonly name = BLOCK_PRODUCER_LEASE,
  ) {
    super();
  }

  /** Tries once now, then every third of the lease length; resolves after the first try. */
  async start(): Promise<void> {
    await this.tick();
    this.timer ??= setInterval(() => void this.tick(), Math.max(1, Math.floor(this.lengthMs / 3)));
  }

  /** Stops renewing and gives the lease up, so another instance takes over at once rather than after expiry. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
    const wasHeld = this.held;
    this.renewedAt = undefined;
    this.setHeld(false);
    if (wasHeld) {
      await this.db
        .delete(leases)
        .where(sql`${leases.name} = ${this.name} and ${leases.holder} = ${this.holder}`)
        .catch(() => undefined);
    }
  }

  /** True while this instance holds the lease: renewed less than one length ago. */
  isLeader(): boolean {
    if (this.renewedAt === undefined || performance.now() - this.renewedAt >= this.lengthMs) {
      if (this.held) this.setHeld(false);
      return false;
    }
    return true;
  }

  /** One try to take or renew the lease (never overlapping the previous one). */
  private tick(): Promise<void> {
    this.running ??= this.tryHold().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async tryHold(): Promise<void> {
    const sentAt = performance.now();
    try {
      // Taken when free, expired or already ours; the expiry is counted on the database's clock.
      const won = await this.db
        .insert(leases)
        .values({
          name: this.name,
          holder: this.holder,
          expiresAt: sql`now() + ${this.lengthMs} * interval '1 millisecond'`,
        })
        .onConflictDoUpdate({
          target: leases.name,
          set: { holder: this.holder, expiresAt: sql`excluded.expires_at` },
          setWhere: sql`${leases.holder} = ${this.holder} or ${leases.expiresAt} < now()`,
        })
        .returning({ holder: leases.holder });
      if (won.length > 0) {
        this.renewedAt = sentAt;
        this.setHeld(true);
      } else {
        this.renewedAt = undefined;
        this.setHeld(false);
      }
    } catch (error) {
      // The database is away: keep counting from the last renewal; isLeader() turns false after one length.
      this.isLeader();
      if (this.held) console.warn(`svckit: renewing the leader lease failed (retrying): ${(error as Error).message}`);
    }
  }

  private setHeld(held: boolean): void {
    if (held === this.held) return;
    this.held = held;
    this.emit('change', held);
  }
}
