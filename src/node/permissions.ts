/**
 * Account permissioning of the emulated chain (D-050): spec "writes require a funded account on the
 * permissioned chain". Allowed senders are the validators and every address the platform created, funded
 * or the administrator added (kept in chain_allowlist, D-152).
 */
import { desc, eq } from 'drizzle-orm';
import { getAddress, type Hex } from 'viem';
import type { Database } from '../storage/database.ts';
import { chainAllowlist } from '../storage/schema.ts';

/** Who may send transactions through the gateway. */
export class ChainPermissions {
  private readonly fixed: Set<string>;

  /** `fixed` are always allowed (the validators). */
  constructor(
    private readonly db: Database,
    fixed: readonly Hex[],
  ) {
    this.fixed = new Set(fixed.map((a) => a.toLowerCase()));
  }

  /** Whether `address` may send transactions. */
  async isAllowed(address: Hex): Promise<boolean> {
    if (this.fixed.has(address.toLowerCase())) return true;
    const rows = await this.db
      .select()
      .from(chainAllowlist)
      .where(eq(chainAllowlist.address, getAddress(address)))
      .limit(1);
    return rows.length > 0;
  }

  /** Allows `address` to send (idempotent). */
  async allow(address: Hex, reason: string): Promise<void> {
    await this.db
      .insert(chainAllowlist)
      .values({ address: getAddress(address), reason })
      .onConflictDoNothing();
  }

  /** Takes `address` off the allow-list; whether it was on it. */
  async disallow(address: Hex): Promise<boolean> {
    const removed = await this.db
      .delete(chainAllowlist)
      .where(eq(chainAllowlist.address, getAddress(address)))
      .returning();
    return removed.length > 0;
  }

  /** The entry of `address`, if it is on the allow-list. */
  async entry(address: Hex): Promise<AllowlistEntry | undefined> {
    const [row] = await this.db
      .select()
      .from(chainAllowlist)
      .where(eq(chainAllowlist.address, getAddress(address)))
      .limit(1);
    return row;
  }

  /** One page of the allow-list, newest first, and how many entries it holds. */
  async page(page: number, limit: number): Promise<{ total: number; rows: AllowlistEntry[] }> {
    const rows = await this.db
      .select()
      .from(chainAllowlist)
      .orderBy(desc(chainAllowlist.addedAt), chainAllowlist.address)
      .limit(limit)
      .offset((page - 1) * limit);
    const total = await this.db.$count(chainAllowlist);
    return { total, rows };
  }
}

/** One row of the allow-list: the address, why it was added and when. */
export type AllowlistEntry = typeof chainAllowlist.$inferSelect;
