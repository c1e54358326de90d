// The statement that stores a transfer (src/ledger/transfers/guarded-insert.ts) allocates the signed nonce
// only if it is still the account's next one and D-026 still holds, and writes all or nothing. Runs on
// PGlite under `npm test` and on PostgreSQL under `npm run test:postgres`, where the racing inserts below
// really run at once on separate connections (as several server instances would).
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { AccountStore, type AccountRow } from '../../src/ledger/accounts.ts';
import { Keyring } from '../../src/ledger/keyring.ts';
import { TransferStatements, type Guard, type NewTransfer } from '../../src/ledger/transfers/guarded-insert.ts';
import { isUniqueViolation } from '../../src/storage/errors.ts';
import { accounts, transfers } from '../../src/storage/schema.ts';
import { registerFreshDatabase } from '../storage/fresh-database.ts';

const fresh = registerFreshDatabase('guarded_insert');
const now = new Date('2026-11-21T12:00:00Z');
const window = { midnight: new Date('2026-11-21T00:00:00Z'), unminedFrom: 0 };
const wei = (units: number) => BigInt(units) * 10n ** 18n;

let counter = 0;
/** A transfer record as the engine would insert it, signed with `nonce` (the bytes do not matter here). */
function transferOf(
  account: AccountRow,
  nonce: number,
  amountWei: bigint,
): NewTransfer & { accountId: string; nonce: number } {
  const n = ++counter;
  return {
    txRef: `TXN20261121-${String(n).padStart(8, '0')}`,
    kind: 'transfer',
    accountId: account.id,
    fromAddress: account.address,
    toAddress: '0x000000000000000000000000000000000000dEaD',
    amountWei: amountWei.toString(),
    nonce,
    txHash: `0x${n.toString(16).padStart(64, '0')}`,
    signedTx: '0x01',
    status: 'pending',
    createdAt: now,
  };
}

async function newAccount(limits = { daily: 100, single: 10 }) {
  const store = new AccountStore(fresh.database.db, Keyring.open({ dataDir: null }));
  return store.create(
    { email: `guard-${++counter}@bank.example`, dailyLimitWei: wei(limits.daily), singleLimitWei: wei(limits.single) },
    now,
  );
}

async function stateOf(account: AccountRow) {
  const [row] = await fresh.database.db
    .select({ nextNonce: accounts.nextNonce })
    .from(accounts)
    .where(eq(accounts.id, account.id));
  const stored = await fresh.database.db
    .select({ nonce: transfers.nonce })
    .from(transfers)
    .where(eq(transfers.accountId, account.id));
  return { nextNonce: row!.nextNonce, nonces: stored.map((t) => t.nonce).sort((a, b) => a - b) };
}

describe('the guarded transfer insert', () => {
  it('stores the record with the signed nonce and moves the next nonce on by one', async () => {
    const statements = new TransferStatements(fresh.database.db);
    const account = await newAccount();
    const guard: Guard = { amountWei: wei(1), window, balanceWei: wei(50) };
    const row = await statements.insertGuarded(transferOf(account, 0, wei(1)), guard);
    expect(row).toMatchObject({ accountId: account.id, nonce: 0, status: 'pending', amountWei: wei(1).toString() });
    expect(row!.createdAt).toEqual(now);
    expect(await stateOf(account)).toEqual({ nextNonce: 1, nonces: [0] });
    const state = await statements.readSenderState(account.id, window);
    expect(state).toMatchObject({ spentToday: wei(1), unmined: wei(1) });
    expect(state!.account.nextNonce).toBe(1);
  });

  it('writes nothing when the nonce moved, the account is not approved, or a limit or the balance no longer allows it', async () => {
    const statements = new TransferStatements(fresh.database.db);
    const account = await newAccount({ daily: 4, single: 3 });
    const ok: Guard = { amountWei: wei(2), window, balanceWei: wei(50) };
    expect(await statements.insertGuarded(transferOf(account, 0, wei(2)), ok)).toBeDefined();
    const refused: [string, NewTransfer & { accountId: string; nonce: number }, Guard][] = [
      ['stale nonce', transferOf(account, 0, wei(2)), ok],
      ['nonce ahead', transferOf(account, 2, wei(2)), ok],
      ['over dailyLimit (2 already sent today)', transferOf(account, 1, wei(3)), { ...ok, amountWei: wei(3) }],
      // 2 sent and not yet in the balance read at a block with transaction count 0: 3 - 2 = 1 spendable.
      ['over the spendable balance', transferOf(account, 1, wei(2)), { ...ok, balanceWei: wei(3) }],
    ];
    for (const [why, transfer, guard] of refused) {
      expect(await statements.insertGuarded(transfer, guard), why).toBeUndefined();
      expect(await stateOf(account), why).toEqual({ nextNonce: 1, nonces: [0] });
    }
    // singleLimit alone: an account whose dailyLimit would allow it.
    const wide = await newAccount({ daily: 100, single: 3 });
    expect(
      await statements.insertGuarded(transferOf(wide, 0, wei(4)), { ...ok, amountWei: wei(4) }),
      'over singleLimit',
    ).toBeUndefined();
    expect(
      await statements.insertGuarded(transferOf(wide, 0, wei(3)), { ...ok, amountWei: wei(3) }),
      'at singleLimit',
    ).toBeDefined();
    await fresh.database.db.update(accounts).set({ status: 'suspended' }).where(eq(accounts.id, account.id));
    expect(
      await statements.insertGuarded(transferOf(account, 1, wei(1)), { ...ok, amountWei: wei(1) }),
      'suspended',
    ).toBeUndefined();
    await fresh.database.db.update(accounts).set({ status: 'approved' }).where(eq(accounts.id, account.id));
    expect(await stateOf(account)).toEqual({ nextNonce: 1, nonces: [0] });
    // Unknown balance (the node did not answer): only the limits are checked (2 + 2 is the dailyLimit of 4).
    expect(
      await statements.insertGuarded(transferOf(account, 1, wei(2)), { ...ok, balanceWei: undefined }),
    ).toBeDefined();
    expect(await stateOf(account)).toEqual({ nextNonce: 2, nonces: [0, 1] });
  });

  it('rolls the allocation back with the insert when the signed bytes are already stored', async () => {
    const statements = new TransferStatements(fresh.database.db);
    const account = await newAccount();
    const guard: Guard = { amountWei: wei(1), window, balanceWei: undefined };
    const first = transferOf(account, 0, wei(1));
    await statements.insertGuarded(first, guard);
    const error = await statements
      .insertGuarded({ ...transferOf(account, 1, wei(1)), txHash: first.txHash }, guard)
      .catch((e: unknown) => e);
    expect(isUniqueViolation(error, 'tx_hash')).toBe(true);
    expect(await stateOf(account)).toEqual({ nextNonce: 1, nonces: [0] });
  });

  it('lets exactly one of many racing inserts with the same nonce through, and the next round likewise', async () => {
    // Separate statement sets, as separate server instances would have; on PostgreSQL each runs on its own
    // pooled connection, so the UPDATEs really wait on one another's row lock.
    const instances = Array.from({ length: 8 }, () => new TransferStatements(fresh.database.db));
    const account = await newAccount({ daily: 1000, single: 10 });
    const guard: Guard = { amountWei: wei(1), window, balanceWei: wei(1000) };
    for (let nonce = 0; nonce < 3; nonce++) {
      const results = await Promise.all(
        instances.map((statements) => statements.insertGuarded(transferOf(account, nonce, wei(1)), guard)),
      );
      expect(results.filter(Boolean).length).toBe(1);
    }
    expect(await stateOf(account)).toEqual({ nextNonce: 3, nonces: [0, 1, 2] });
  });
});
