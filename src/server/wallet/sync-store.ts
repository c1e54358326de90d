/** Queries of cross-device sync (D-082): public ML-KEM-768 keys and ciphertext only (spec rule 2). */
import { and, count, desc, eq, or, sql } from 'drizzle-orm';
import type { Database } from '../../storage/database.ts';
import { walletSyncDevices, walletSyncEnvelopes } from '../../storage/schema.ts';

/** A stored device. */
export type DeviceRow = typeof walletSyncDevices.$inferSelect;
/** A stored envelope. */
export type EnvelopeRow = typeof walletSyncEnvelopes.$inferSelect;

/** The identity's devices, oldest first. */
export function devices(db: Database, svcId: string): Promise<DeviceRow[]> {
  return db
    .select()
    .from(walletSyncDevices)
    .where(eq(walletSyncDevices.svcId, svcId))
    .orderBy(walletSyncDevices.createdAt, walletSyncDevices.deviceId);
}

/** Registers a device or updates its label; `isNew` on the first registration; null when `limit` devices exist already. */
export async function putDevice(
  db: Database,
  row: DeviceRow,
  limit: number,
): Promise<{ device: DeviceRow; isNew: boolean } | null> {
  return db.transaction(async (tx) => {
    const [existing] = await tx
      .select()
      .from(walletSyncDevices)
      .where(and(eq(walletSyncDevices.svcId, row.svcId), eq(walletSyncDevices.deviceId, row.deviceId)));
    if (existing) {
      const label = row.label ?? existing.label;
      await tx
        .update(walletSyncDevices)
        .set({ label })
        .where(and(eq(walletSyncDevices.svcId, row.svcId), eq(walletSyncDevices.deviceId, row.deviceId)));
      return { device: { ...existing, label }, isNew: false };
    }
    const [{ n } = { n: 0 }] = await tx
      .select({ n: count() })
      .from(walletSyncDevices)
      .where(eq(walletSyncDevices.svcId, row.svcId));
    if (n >= limit) return null;
    await tx.insert(walletSyncDevices).values(row);
    return { device: row, isNew: true };
  });
}

/** Removes a device and every envelope it sent or was sent; false when there was none. */
export async function deleteDevice(db: Database, svcId: string, deviceId: string): Promise<boolean> {
  return db.transaction(async (tx) => {
    const gone = await tx
      .delete(walletSyncDevices)
      .where(and(eq(walletSyncDevices.svcId, svcId), eq(walletSyncDevices.deviceId, deviceId)))
      .returning();
    await tx
      .delete(walletSyncEnvelopes)
      .where(
        and(
          eq(walletSyncEnvelopes.svcId, svcId),
          or(eq(walletSyncEnvelopes.fromDevice, deviceId), eq(walletSyncEnvelopes.toDevice, deviceId)),
        ),
      );
    return gone.length > 0;
  });
}

/** Stores each envelope, replacing the previous one of its (from, to) pair and counting its version up. */
export async function putEnvelopes(
  db: Database,
  svcId: string,
  fromDevice: string,
  items: { toDevice: string; data: Uint8Array }[],
  now: Date,
): Promise<void> {
  await db.transaction(async (tx) => {
    for (const item of items) {
      await tx
        .insert(walletSyncEnvelopes)
        .values({ svcId, fromDevice, toDevice: item.toDevice, data: item.data, version: 1, updatedAt: now })
        .onConflictDoUpdate({
          target: [walletSyncEnvelopes.svcId, walletSyncEnvelopes.fromDevice, walletSyncEnvelopes.toDevice],
          set: { data: item.data, version: sql`${walletSyncEnvelopes.version} + 1`, updatedAt: now },
        });
    }
  });
}

/** The envelopes sealed to `toDevice`, newest first. */
export function envelopesFor(db: Database, svcId: string, toDevice: string): Promise<EnvelopeRow[]> {
  return db
    .select()
    .from(walletSyncEnvelopes)
    .where(and(eq(walletSyncEnvelopes.svcId, svcId), eq(walletSyncEnvelopes.toDevice, toDevice)))
    .orderBy(desc(walletSyncEnvelopes.updatedAt), walletSyncEnvelopes.fromDevice);
}
