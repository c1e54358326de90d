// D-217, D-218: the accounting under the sync budgets, on a real database. The total that sync holds is kept
// by triggers and must equal what the rows hold after any mix of writes, overwrites and deletes; a refused
// write stores nothing; the per-IP count is every byte written in the last 24 hours and nothing is given back.
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import type { SyncBudgets } from '../../src/config.ts';
import { RestError } from '../../src/server/http/errors.ts';
import {
  deleteDevice,
  ipKey,
  putDevice,
  putEnvelopes,
  type DeviceRow,
  type SyncWriter,
} from '../../src/server/wallet/sync-store.ts';
import { registerFreshDatabase } from '../storage/fresh-database.ts';

const fresh = registerFreshDatabase('sync_usage');
const db = () => fresh.database.db;

const LARGE: SyncBudgets = { perIdentity: 10_000_000, perIpPerDay: 100_000_000, total: 100_000_000 };
const T0 = Date.parse('2026-11-27T10:30:00.000Z');
const writer = (over: Partial<SyncWriter> = {}): SyncWriter => ({
  ipKey: '192.0.2.1',
  now: new Date(T0),
  budgets: LARGE,
  ...over,
});

const device = (svcId: string, deviceId: string, label: string | null = null): DeviceRow => ({
  svcId,
  deviceId,
  kemPublicKey: new Uint8Array(1184).fill(7),
  label,
  createdAt: new Date(T0),
});
const bytes = (n: number) => new Uint8Array(n).fill(1);

/** What the usage row says and what the rows hold. */
async function usage(): Promise<{ kept: number; counted: number }> {
  const { rows } = (await db().execute(sql`
    select (select bytes from wallet_sync_usage where id = 1) as kept,
      coalesce((select sum(octet_length(data)) from wallet_sync_envelopes), 0)
      + coalesce((select sum(octet_length(kem_public_key) + coalesce(octet_length(label), 0)) from wallet_sync_devices), 0)
      as counted`)) as unknown as { rows: { kept: string | number; counted: string | number }[] };
  return { kept: Number(rows[0]!.kept), counted: Number(rows[0]!.counted) };
}

/** The code of the RestError `work` throws. */
async function refusal(work: Promise<unknown>): Promise<string> {
  const error = await work.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(RestError);
  return (error as RestError).code;
}

describe('the total sync holds (D-217)', () => {
  it('stays equal to what the rows hold through writes, overwrites, label changes, deletes and a truncate', async () => {
    const w = writer();
    for (const id of ['a1', 'a2', 'a3']) await putDevice(db(), device('aaaa', id), 32, w);
    await putDevice(db(), device('aaaa', 'a1', 'laptop'), 32, w);
    await putEnvelopes(
      db(),
      'aaaa',
      'a1',
      [
        { toDevice: 'a2', data: bytes(5000) },
        { toDevice: 'a3', data: bytes(7000) },
      ],
      w,
    );
    await putEnvelopes(db(), 'aaaa', 'a1', [{ toDevice: 'a2', data: bytes(2000) }], w);
    await putEnvelopes(db(), 'aaaa', 'a2', [{ toDevice: 'a1', data: bytes(9000) }], w);
    expect(await usage()).toEqual({
      kept: 3 * 1184 + 6 + 2000 + 7000 + 9000,
      counted: 3 * 1184 + 6 + 2000 + 7000 + 9000,
    });
    await deleteDevice(db(), 'aaaa', 'a1');
    const afterDelete = await usage();
    expect(afterDelete.kept).toBe(afterDelete.counted);
    expect(afterDelete.kept).toBe(2 * 1184);
    await db().execute(sql`truncate wallet_sync_devices`);
    expect(await usage()).toEqual({ kept: 0, counted: 0 });
  });

  it('refuses a write past the total with SYNC_STORAGE_FULL and stores none of it; a write that frees always fits', async () => {
    const w = writer({ ipKey: '192.0.2.2' });
    for (const id of ['b1', 'b2', 'b3']) await putDevice(db(), device('bbbb', id), 32, w);
    await putEnvelopes(db(), 'bbbb', 'b1', [{ toDevice: 'b2', data: bytes(10_000) }], w);
    const before = await usage();
    const full = writer({ ipKey: '192.0.2.2', budgets: { ...LARGE, total: before.kept + 5_000 } });
    expect(
      await refusal(
        putEnvelopes(
          db(),
          'bbbb',
          'b1',
          [
            { toDevice: 'b2', data: bytes(12_000) },
            { toDevice: 'b3', data: bytes(12_000) },
          ],
          full,
        ),
      ),
    ).toBe('SYNC_STORAGE_FULL');
    expect(await usage()).toEqual(before);
    expect(
      await refusal(
        putDevice(db(), device('bbbb', 'b4'), 32, { ...full, budgets: { ...full.budgets, total: before.kept } }),
      ),
    ).toBe('SYNC_STORAGE_FULL');
    // Over a lowered total, replacing an envelope by a smaller one still goes through.
    const lowered = writer({ ipKey: '192.0.2.2', budgets: { ...LARGE, total: 1 } });
    await putEnvelopes(db(), 'bbbb', 'b1', [{ toDevice: 'b2', data: bytes(4_000) }], lowered);
    expect((await usage()).kept).toBe(before.kept - 6_000);
  });

  it('lets through only as many concurrent writes as the identity budget holds', async () => {
    const ids = Array.from({ length: 8 }, (_, i) => `c${i}`);
    for (const id of ids) await putDevice(db(), device('cccc', id), 32, writer({ ipKey: '192.0.2.3' }));
    const budgets = { ...LARGE, perIdentity: 8 * 1184 + 30_000 };
    const results = await Promise.allSettled(
      ids.map((id, i) =>
        putEnvelopes(db(), 'cccc', id, [{ toDevice: ids[(i + 1) % 8]!, data: bytes(10_000) }], {
          ...writer({ budgets }),
          ipKey: `192.0.2.${100 + i}`,
        }),
      ),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(3);
    for (const r of results)
      if (r.status === 'rejected') expect((r.reason as RestError).code).toBe('SYNC_QUOTA_EXCEEDED');
  });
});

describe('sync bytes per client IP in 24 hours (D-218)', () => {
  it('counts every byte written, overwrites and rewrites after a delete included, and frees it only as hours pass', async () => {
    const budgets = { ...LARGE, perIpPerDay: 3 * 1184 + 30_000 };
    const at = (ms: number) => writer({ ipKey: '198.51.100.7', budgets, now: new Date(T0 + ms) });
    for (const id of ['d1', 'd2', 'd3']) await putDevice(db(), device('dddd', id), 32, at(0));
    await putEnvelopes(db(), 'dddd', 'd1', [{ toDevice: 'd2', data: bytes(10_000) }], at(0));
    await putEnvelopes(db(), 'dddd', 'd1', [{ toDevice: 'd2', data: bytes(10_000) }], at(60_000));
    await deleteDevice(db(), 'dddd', 'd2');
    await putEnvelopes(db(), 'dddd', 'd1', [{ toDevice: 'd3', data: bytes(10_000) }], at(2 * 3_600_000));
    // 3 keys and 30,000 bytes written; what is held is far less, but the IP's 24 hours are spent.
    const error = await putEnvelopes(db(), 'dddd', 'd3', [{ toDevice: 'd1', data: bytes(1) }], at(3 * 3_600_000)).catch(
      (e: unknown) => e as RestError,
    );
    expect(error).toBeInstanceOf(RestError);
    expect((error as RestError).code).toBe('RATE_LIMITED');
    // The oldest counted hour (10:00) leaves the window at 10:00 the next day, 20.5 hours after 13:30.
    expect(Number((error as RestError).headers['retry-after'])).toBe(20.5 * 3600);
    // Another IP is not affected; an IPv6 address counts by its /64.
    await putEnvelopes(db(), 'dddd', 'd3', [{ toDevice: 'd1', data: bytes(1200) }], {
      ...at(0),
      ipKey: ipKey('2001:db8::1'),
    });
    // A day after the first hour the first writes no longer count.
    await putEnvelopes(db(), 'dddd', 'd3', [{ toDevice: 'd1', data: bytes(1200) }], at(24 * 3_600_000));
  });

  it('keys IPv6 clients by their /64 and IPv4-mapped addresses by their IPv4 address', () => {
    expect(ipKey('2001:db8:1:2:3:4:5:6')).toBe('2001:db8:1:2::/64');
    expect(ipKey('2001:DB8:1:2::ffff')).toBe('2001:db8:1:2::/64');
    expect(ipKey('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(ipKey('::1')).toBe('0:0:0:0::/64');
    expect(ipKey('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(ipKey('::ffff:192.0.2.9')).toBe('192.0.2.9');
    expect(ipKey('192.0.2.9')).toBe('192.0.2.9');
  });
});
