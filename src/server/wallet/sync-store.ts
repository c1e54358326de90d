/**
 * Queries of cross-device sync (D-082): public ML-KEM-768 keys and ciphertext only (spec rule 2). Every write
 * is admitted under the sync budgets first (D-217, D-218), in the transaction that makes it.
 */
import { and, count, desc, eq, gte, inArray, lt, or, sql } from 'drizzle-orm';
import type { SyncBudgets } from '../../config.ts';
import type { Database } from '../../storage/database.ts';
import { walletSyncDevices, walletSyncEnvelopes, walletSyncIpWrites, walletSyncUsage } from '../../storage/schema.ts';
import { ErrorCode, RestError } from '../http/errors.ts';

/** A transaction of {@link Database}. */
type Tx = Parameters<Parameters<Database['transaction']>[0]>[0];

/** Who writes and under which budgets: the client IP's key ({@link ipKey}), the time and the settings. */
export type SyncWriter = { ipKey: string; now: Date; budgets: SyncBudgets };

/**
 * D-217: the key of the advisory lock that puts the sync writes of every instance in one line, so that two
 * writes never both pass a budget that only one of them fits. Any fixed number no other lock of svckit uses.
 */
export const SYNC_WRITE_LOCK = 0x5356_5359n;

/** D-218: the window of the per-IP byte budget, counted in hourly buckets. */
export const SYNC_IP_WINDOW_MS = 24 * 3_600_000;
const HOUR_MS = 3_600_000;

/**
 * The key per-IP limits count under (D-218, D-219): an IPv4 address as it is, an IPv4-mapped IPv6 address as
 * its IPv4 address, and any other IPv6 address as its /64 prefix, the block one subscriber is usually given.
 */
export function ipKey(ip: string): string {
  const address = (ip.split('%')[0] ?? '').toLowerCase();
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(address);
  if (mapped) return mapped[1]!;
  if (!address.includes(':')) return address;
  const groups = (part: string | undefined) => (part ? part.split(':') : []);
  const [head, tail] = address.split('::');
  const left = groups(head);
  const right = groups(tail);
  const all =
    tail === undefined ? left : [...left, ...Array(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right];
  return `${all
    .slice(0, 4)
    .map((g) => Number.parseInt(g, 16).toString(16))
    .join(':')}::/64`;
}

/** The bytes a device row holds: its ML-KEM-768 key and its label (as the usage trigger counts them). */
export const deviceBytes = (row: Pick<DeviceRow, 'kemPublicKey' | 'label'>) =>
  row.kemPublicKey.length + Buffer.byteLength(row.label ?? '', 'utf8');

/** The bytes `svcId` holds in sync: envelopes, device keys and labels (as the usage trigger counts them). */
async function heldBy(tx: Tx, svcId: string): Promise<number> {
  const [envelopes] = await tx
    .select({ bytes: sql<string>`coalesce(sum(octet_length(${walletSyncEnvelopes.data})), 0)` })
    .from(walletSyncEnvelopes)
    .where(eq(walletSyncEnvelopes.svcId, svcId));
  const [keys] = await tx
    .select({
      bytes: sql<string>`coalesce(sum(octet_length(${walletSyncDevices.kemPublicKey}) + coalesce(octet_length(${walletSyncDevices.label}), 0)), 0)`,
    })
    .from(walletSyncDevices)
    .where(eq(walletSyncDevices.svcId, svcId));
  return Number(envelopes?.bytes ?? 0) + Number(keys?.bytes ?? 0);
}

const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(2)} MiB`;

/**
 * Admits a sync write of `written` bytes that changes what is held by `growth` (negative when it frees), or
 * throws: 413 SYNC_QUOTA_EXCEEDED past the identity's budget, 413 SYNC_STORAGE_FULL past the total (D-217),
 * 429 RATE_LIMITED past the IP's bytes of the last 24 hours (D-218). An admitted write is counted against
 * the IP at once; the transaction that stores it commits both or neither.
 */
export async function admitSyncWrite(tx: Tx, svcId: string, writer: SyncWriter, written: number, growth: number) {
  const { budgets, now } = writer;
  await tx.execute(sql`select pg_advisory_xact_lock(${SYNC_WRITE_LOCK}::bigint)`);
  // A write that frees as much as it adds always fits what is held, so a full identity can still shrink.
  if (growth > 0) {
    const held = await heldBy(tx, svcId);
    if (held + growth > budgets.perIdentity)
      throw new RestError(
        ErrorCode.SYNC_QUOTA_EXCEEDED,
        `svcId ${svcId} holds ${held} sync bytes and this write adds ${growth}; an identity holds at most ${budgets.perIdentity} (${mib(budgets.perIdentity)}): remove a device (DELETE /sync/devices/{deviceId}) or send smaller states`,
      );
    const [usage] = await tx.select({ bytes: walletSyncUsage.bytes }).from(walletSyncUsage);
    if (Number(usage?.bytes ?? 0) + growth > budgets.total)
      throw new RestError(
        ErrorCode.SYNC_STORAGE_FULL,
        `the service's sync storage is full (${mib(budgets.total)} for all identities); try again later`,
      );
  }
  const hour = new Date(Math.floor(now.getTime() / HOUR_MS) * HOUR_MS);
  const since = new Date(hour.getTime() - SYNC_IP_WINDOW_MS + HOUR_MS);
  await tx
    .delete(walletSyncIpWrites)
    .where(and(eq(walletSyncIpWrites.ipKey, writer.ipKey), lt(walletSyncIpWrites.hour, since)));
  const buckets = await tx
    .select({ hour: walletSyncIpWrites.hour, bytes: walletSyncIpWrites.bytes })
    .from(walletSyncIpWrites)
    .where(and(eq(walletSyncIpWrites.ipKey, writer.ipKey), gte(walletSyncIpWrites.hour, since)))
    .orderBy(walletSyncIpWrites.hour);
  const used = buckets.reduce((sum, b) => sum + Number(b.bytes), 0);
  if (used + written > budgets.perIpPerDay) {
    // The oldest hour of the window leaves it first; that is the earliest time a retry can fit.
    const oldest = buckets[0]?.hour.getTime() ?? hour.getTime();
    const seconds = Math.max(1, Math.ceil((oldest + SYNC_IP_WINDOW_MS - now.getTime()) / 1000));
    throw new RestError(
      ErrorCode.RATE_LIMITED,
      `sync write budget exceeded: this client IP wrote ${used} sync bytes in the last 24 hours and this write adds ${written}; at most ${budgets.perIpPerDay} (${mib(budgets.perIpPerDay)}) per IP per 24 hours, retry in ${seconds} s`,
      { headers: { 'retry-after': String(seconds) } },
    );
  }
  await tx
    .insert(walletSyncIpWrites)
    .values({ ipKey: writer.ipKey, hour, bytes: written })
    .onConflictDoUpdate({
      target: [walletSyncIpWrites.ipKey, walletSyncIpWrites.hour],
      set: { bytes: sql`${walletSyncIpWrites.bytes} + ${written}` },
    });
}

/** Drops the per-IP counts that have left the 24-hour window (D-218). */
export async function purgeIpWrites(db: Database, now: Date): Promise<void> {
  const hour = Math.floor(now.getTime() / HOUR_MS) * HOUR_MS;
  await db.delete(walletSyncIpWrites).where(lt(walletSyncIpWrites.hour, new Date(hour - SYNC_IP_WINDOW_MS + HOUR_MS)));
}

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

/**
 * Registers a device or updates its label; `isNew` on the first registration; null when `limit` devices exist
 * already. D-217, D-218: the row's bytes are admitted under the budgets of `writer`, or a RestError is thrown.
 */
export async function putDevice(
  db: Database,
  row: DeviceRow,
  limit: number,
  writer: SyncWriter,
): Promise<{ device: DeviceRow; isNew: boolean } | null> {
  return db.transaction(async (tx) => {
    const [existing] = await tx
      .select()
      .from(walletSyncDevices)
      .where(and(eq(walletSyncDevices.svcId, row.svcId), eq(walletSyncDevices.deviceId, row.deviceId)));
    if (existing) {
      const label = row.label ?? existing.label;
      if (label !== existing.label) {
        const after = deviceBytes({ ...existing, label });
        await admitSyncWrite(tx, row.svcId, writer, after, after - deviceBytes(existing));
      }
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
    await admitSyncWrite(tx, row.svcId, writer, deviceBytes(row), deviceBytes(row));
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

/**
 * Stores each envelope, replacing the previous one of its (from, to) pair and counting its version up.
 * D-217, D-218: every byte sent counts against the writer's IP, the growth against the identity and the total.
 */
export async function putEnvelopes(
  db: Database,
  svcId: string,
  fromDevice: string,
  items: { toDevice: string; data: Uint8Array }[],
  writer: SyncWriter,
): Promise<void> {
  const { now } = writer;
  await db.transaction(async (tx) => {
    const replaced = await tx
      .select({ bytes: sql<number>`octet_length(${walletSyncEnvelopes.data})` })
      .from(walletSyncEnvelopes)
      .where(
        and(
          eq(walletSyncEnvelopes.svcId, svcId),
          eq(walletSyncEnvelopes.fromDevice, fromDevice),
          inArray(
            walletSyncEnvelopes.toDevice,
            items.map((i) => i.toDevice),
          ),
        ),
      );
    const written = items.reduce((sum, i) => sum + i.data.length, 0);
    const freed = replaced.reduce((sum, r) => sum + Number(r.bytes), 0);
    await admitSyncWrite(tx, svcId, writer, written, written - freed);
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
