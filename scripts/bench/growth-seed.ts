/**
 * Bulk rows for the growth benchmark, written with `INSERT ... SELECT generate_series` (never through the
 * API): transfers with their payments, payment events and their webhook deliveries, and the accounts that
 * sent them (one account per 100 transfers). A fixed part is the same at every size: the probed account
 * (200 transfers sent, 50 received, 20 of its sent transfers pending) and 100 deliveries due.
 */
import { sql } from 'drizzle-orm';
import type { Database } from '../../src/storage/database.ts';

/** The account whose statement and transfer list are timed. */
export const PROBE = { id: 'acc_01JD3Z8Q4V6WQ8N2K7M5R9PROB', address: '0x00000000000000000000000000000000000a11ce' };

/** A transfer of the probed account, read by reference. */
export const PROBE_REF = 'TXN20260101-PROBE050';

/** Pending transfers and due deliveries present at every size. */
export const PENDING_TRANSFERS = 20;
export const DUE_DELIVERIES = 100;

const EPOCH = '2026-01-01T00:00:00Z';
const FILLER = sql`'\\x00'::bytea`;
/** An integer written into the statement (generate_series bounds must be typed, parameters are not). */
const int = (value: number) => sql.raw(String(Math.trunc(value)));

/** The fixed part: the probed account, its transfers, one webhook endpoint and the due deliveries. */
export async function seedFixed(db: Database): Promise<void> {
  await db.execute(sql`
    INSERT INTO accounts (id, reference, email, status, daily_limit_wei, single_limit_wei, address,
                          chain_key_ciphertext, mlkem_public_key, mlkem_secret_ciphertext, wrapped_dek, kek_id,
                          next_nonce, created_at)
    VALUES (${PROBE.id}, 'ACC-9999999999', 'probe@bank.example', 'active', 10, 10, ${PROBE.address},
            ${FILLER}, ${FILLER}, ${FILLER}, ${FILLER}, 'kek', 200, ${EPOCH}::timestamptz)`);
  // 200 sent (the last 20 pending), 50 received, spread over the first days.
  await db.execute(sql`
    INSERT INTO transfers (tx_ref, kind, account_id, from_address, to_address, amount_wei, nonce, tx_hash, signed_tx,
                           status, block_number, block_timestamp, created_at)
    SELECT 'TXN20260101-PROBE' || lpad(g::text, 3, '0'), 'transfer',
           CASE WHEN g < 200 THEN ${PROBE.id} ELSE 'acc_probe_peer' END,
           CASE WHEN g < 200 THEN ${PROBE.address} ELSE '0x' || lpad('beef', 40, '0') END,
           CASE WHEN g < 200 THEN '0x' || lpad('beef', 40, '0') ELSE ${PROBE.address} END,
           1000, g, '0x' || md5('probe' || g) || md5('probe-' || g), '0x00',
           CASE WHEN g BETWEEN ${int(200 - PENDING_TRANSFERS)} AND 199 THEN 'pending' ELSE 'confirmed' END,
           g, 1767225600 + g, ${EPOCH}::timestamptz + g * interval '17 minutes'
      FROM generate_series(0, 249) AS g`);
  await db.execute(sql`
    INSERT INTO webhook_endpoints (id, url, description, events, account_ids, enabled, secret, created_at, updated_at)
    VALUES ('we_probe', 'https://127.0.0.1:9/hook', 'growth benchmark', '["payment.settled"]', ${JSON.stringify([PROBE.id])}::jsonb,
            true, 'sealed', ${EPOCH}::timestamptz, ${EPOCH}::timestamptz)`);
  await db.execute(sql`
    INSERT INTO webhook_events (id, type, uetr, body, debtor_account_id, created_at)
    SELECT 'evt_probe_' || g, 'payment.settled', md5('probe-evt' || g)::uuid::text, '{}', ${PROBE.id},
           ${EPOCH}::timestamptz + g * interval '1 minute'
      FROM generate_series(1, ${int(DUE_DELIVERIES)}) AS g`);
  await db.execute(sql`
    INSERT INTO webhook_deliveries (id, event_id, endpoint_id, event, uetr, status, round, attempts, next_attempt_at,
                                    created_at)
    SELECT 'dlv_probe_' || g, 'evt_probe_' || g, 'we_probe', 'payment.settled', md5('probe-evt' || g)::uuid::text,
           'pending', 1, 0, ${EPOCH}::timestamptz + g * interval '1 minute', ${EPOCH}::timestamptz + g * interval '1 minute'
      FROM generate_series(1, ${int(DUE_DELIVERIES)}) AS g`);
}

/**
 * Bulk rows numbered `from` to `to` (inclusive): a confirmed transfer, its settled payment, its event and that
 * event's delivered delivery each, and a sending account per 100 transfers.
 */
export async function seedBulk(db: Database, from: number, to: number): Promise<void> {
  const at = sql`${EPOCH}::timestamptz + g * interval '3 seconds'`;
  await db.execute(sql`
    INSERT INTO accounts (id, reference, email, status, daily_limit_wei, single_limit_wei, address,
                          chain_key_ciphertext, mlkem_public_key, mlkem_secret_ciphertext, wrapped_dek, kek_id,
                          next_nonce, created_at)
    SELECT 'acc_bulk_' || a, 'ACC-' || lpad(a::text, 10, '0'), 'bulk@bank.example', 'active', 10, 10,
           '0x' || lpad(to_hex(a), 40, '0'), ${FILLER}, ${FILLER}, ${FILLER}, ${FILLER}, 'kek', 100, ${EPOCH}::timestamptz
      FROM generate_series(${int(Math.ceil(from / 100))}, ${int(Math.floor(to / 100))}) AS a
        ON CONFLICT DO NOTHING`);
  await db.execute(sql`
    INSERT INTO transfers (tx_ref, kind, account_id, from_address, to_address, amount_wei, nonce, tx_hash, signed_tx,
                           status, block_number, block_timestamp, created_at)
    SELECT 'TXN20260101-' || lpad(g::text, 8, '0'), 'transfer', 'acc_bulk_' || (g / 100),
           '0x' || lpad(to_hex(g / 100), 40, '0'), '0x' || lpad(to_hex(((g * 7919) % ${int(to + 1)}) / 100), 40, '0'),
           1000, g % 100, '0x' || md5('t' || g) || md5('u' || g), '0x00', 'confirmed', g / 10, 1767225600 + g * 3, ${at}
      FROM generate_series(${int(from)}::bigint, ${int(to)}::bigint) AS g`);
  await db.execute(sql`
    INSERT INTO payments (uetr, tx_ref, source, status, instr_amt_ccy, instr_amt, settl_amt_ccy, settl_amt, dbtr_inst,
                          cdtr_inst, debtor_account_id, transfer_tx_ref, on_chain_tx_hash, sttlm_tm, created_at, updated_at)
    SELECT md5('p' || g)::uuid::text, 'PMT-20260101-' || lpad(g::text, 10, '0'), 'transfer', 'SETTLED', 'SVC', '0.001',
           'SVC', '0.001', 'SVCKGB2LXXX', 'SVCKGB2LXXX', 'acc_bulk_' || (g / 100), 'TXN20260101-' || lpad(g::text, 8, '0'),
           '0x' || md5('t' || g) || md5('u' || g), '2026-01-01T00:00:00.000Z', ${at}, ${at}
      FROM generate_series(${int(from)}::bigint, ${int(to)}::bigint) AS g`);
  await db.execute(sql`
    INSERT INTO webhook_events (id, type, uetr, body, debtor_account_id, created_at)
    SELECT 'evt_bulk_' || g, 'payment.settled', md5('p' || g)::uuid::text, '{}', 'acc_bulk_' || (g / 100), ${at}
      FROM generate_series(${int(from)}::bigint, ${int(to)}::bigint) AS g`);
  await db.execute(sql`
    INSERT INTO webhook_deliveries (id, event_id, endpoint_id, event, uetr, status, round, attempts, created_at,
                                    delivered_at)
    SELECT 'dlv_bulk_' || g, 'evt_bulk_' || g, 'we_probe', 'payment.settled', md5('p' || g)::uuid::text, 'delivered',
           1, 1, ${at}, ${at}
      FROM generate_series(${int(from)}::bigint, ${int(to)}::bigint) AS g`);
  await db.execute(sql`VACUUM ANALYZE`);
}
