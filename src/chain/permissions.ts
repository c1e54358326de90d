/**
 * Account permissioning of the emulated chain (D-050): spec "writes require a funded account on the
 * permissioned chain". Allowed senders are the genesis accounts, the validators and every account the
 * platform created or funded (kept in chain_allowlist).
 */
import { eq } from 'drizzle-orm';
import { getAddress, type Hex } from 'viem';
import type { Database } from '../storage/database.ts';
import { chainAllowlist } from '../storage/schema.ts';

/** Who may send transactions through the gateway. */
export class ChainPermissions {
  private readonly fixed: Set<string>;

  /** `fixed` are always allowed (genesis accounts, validators). */
  constructor(
    private readonly db: Database,
    fixed: readonly Hex[],
  ) {
    this.fixed = new Set(fixed.map((a) => a.toLowerCase()));
  }

  /** Whether `address` may send transactions. */
  async isAllowed(address: Hex): Promise<boolean> {
    if (this.fixed.has(address.toLowerCase())) return true;
    const rows = await this.db.select().from(chainAllowlist).where(eq(chainAllowlist.address, getAddress(address))).limit(1);
    return rows.length > 0;
  }

  /** Allows `address` to send (idempotent). */
  async allow(address: Hex, reason: string): Promise<void> {
    await this.db.insert(chainAllowlist).values({ address: getAddress(address), reason }).onConflictDoNothing();
  }
}
