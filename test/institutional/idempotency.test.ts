// D-046: Idempotency-Key claims on a real database (PGlite here, PostgreSQL in `npm run test:postgres`). A
// claim that never got its response (its request died before the transfer was stored) is taken over after
// ABANDONED_AFTER_MS, and the request that held it can then no longer store a response: its transaction
// rolls back, so one key never creates two transfers.
import { describe, expect, it } from 'vitest';
import { statusOf } from '../../src/server/http/error-codes.ts';
import { RestError } from '../../src/server/http/errors.ts';
import { ABANDONED_AFTER_MS, claimKey, storeResponse } from '../../src/server/institutional/idempotency.ts';
import { registerFreshDatabase } from '../storage/fresh-database.ts';

const fresh = registerFreshDatabase('svckit_idem');

const codeOf = async (work: Promise<unknown>) =>
  work.then(
    () => 'ok',
    (e: unknown) => (e instanceof RestError ? `${statusOf(e.code)} ${e.code}` : String(e)),
  );

describe('Idempotency-Key claims (D-046)', () => {
  it('replays a stored response, answers 409 while in progress and takes over an abandoned claim', async () => {
    const t0 = new Date(Date.UTC(2026, 10, 21, 12));
    const at = (ms: number) => new Date(t0.getTime() + ms);
    const first = await claimKey(fresh.database.db, 'key_a', 'k1', 'digest', t0);
    expect(first).toEqual({ claimedAt: t0 });
    expect(await codeOf(claimKey(fresh.database.db, 'key_a', 'k1', 'digest', at(ABANDONED_AFTER_MS)))).toBe(
      '409 IDEMPOTENCY_IN_PROGRESS',
    );
    expect(await codeOf(claimKey(fresh.database.db, 'key_a', 'k1', 'other', at(1000)))).toBe(
      '422 IDEMPOTENCY_KEY_REUSED',
    );

    // The first request died before storing its transfer: after ABANDONED_AFTER_MS a retry takes the key over.
    const retry = await claimKey(fresh.database.db, 'key_a', 'k1', 'digest', at(ABANDONED_AFTER_MS + 1));
    expect(retry).toEqual({ claimedAt: at(ABANDONED_AFTER_MS + 1) });
    // Had the first request been alive after all, its transaction could not store a response now.
    expect(
      await codeOf(
        fresh.database.db.transaction((tx) =>
          storeResponse(tx, 'key_a', 'k1', t0, { status: null, body: { txRef: 'first' } }),
        ),
      ),
    ).toBe('409 IDEMPOTENCY_IN_PROGRESS');
    await fresh.database.db.transaction((tx) =>
      storeResponse(tx, 'key_a', 'k1', at(ABANDONED_AFTER_MS + 1), { status: 201, body: { txRef: 'retry' } }),
    );
    expect(await claimKey(fresh.database.db, 'key_a', 'k1', 'digest', at(ABANDONED_AFTER_MS + 2))).toEqual({
      replay: { status: 201, body: { txRef: 'retry' } },
    });
    expect(await claimKey(fresh.database.db, 'key_a', 'k1', 'digest', at(ABANDONED_AFTER_MS + 2000))).toEqual({
      replay: { status: 201, body: { txRef: 'retry' } },
    });
    // A completed key is never taken over as abandoned, only after the 24-hour retention.
    expect(await claimKey(fresh.database.db, 'key_a', 'k1', 'digest', at(3_600_000))).toEqual({
      replay: { status: 201, body: { txRef: 'retry' } },
    });
    expect(
      await claimKey(fresh.database.db, 'key_a', 'k1', 'digest', at(24 * 3_600_000 + ABANDONED_AFTER_MS + 2)),
    ).toEqual({ claimedAt: at(24 * 3_600_000 + ABANDONED_AFTER_MS + 2) });
  });

  it('answers 409 while a stored transfer is being broadcast, and replays it once its request has died', async () => {
    const t0 = new Date(Date.UTC(2026, 10, 22, 12));
    const at = (ms: number) => new Date(t0.getTime() + ms);
    expect(await claimKey(fresh.database.db, 'key_b', 'k2', 'digest', t0)).toEqual({ claimedAt: t0 });
    // The transfer's transaction stores the body; the status follows when the request answers.
    await fresh.database.db.transaction((tx) =>
      storeResponse(tx, 'key_b', 'k2', t0, { status: null, body: { txRef: 'stored' } }),
    );
    expect(await codeOf(claimKey(fresh.database.db, 'key_b', 'k2', 'digest', at(1000)))).toBe(
      '409 IDEMPOTENCY_IN_PROGRESS',
    );
    // The process died before answering (a crash between the stored record and the broadcast, D-078).
    expect(await claimKey(fresh.database.db, 'key_b', 'k2', 'digest', at(ABANDONED_AFTER_MS + 1))).toEqual({
      replay: { status: 201, body: { txRef: 'stored' } },
    });
    expect(await codeOf(claimKey(fresh.database.db, 'key_b', 'k2', 'other', at(ABANDONED_AFTER_MS + 1)))).toBe(
      '422 IDEMPOTENCY_KEY_REUSED',
    );
  });
});
