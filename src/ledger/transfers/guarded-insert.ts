/**
 * The two statements that store a transfer (spec "Behaviour of POST /transfers": "The transfer record is
 * stored before the broadcast"), with D-026's limits:
 *
 * 1. `readSenderState`: the account row with both D-026 sums, read without a lock. The engine validates
 *    against it (clear 400s) and signs with the account's next nonce.
 * 2. `insertGuarded`: one statement that allocates that nonce only if it is still the next one and every
 *    D-026 condition still holds (compare-and-increment on the account row), inserts the record from the
 *    allocation, and runs the payment hooks' CTEs from the record. PostgreSQL runs a statement atomically,
 *    so it either does all of it or none. When anything changed in between (another instance took the
 *    nonce, an administrator suspended the account, a limit moved), it returns no row and the engine reads
 *    again: no lock is held across the signing, and none across a round trip to the database.
 *
 * Concurrency on PostgreSQL (READ COMMITTED): the UPDATE waits for a concurrent writer of the account row
 * and then re-checks its WHERE clause on the newest row version. The sums are taken from the statement's
 * snapshot, but every transfer insert increments `next_nonce` in the same statement, so `next_nonce =
 * expected` on the newest version proves no transfer of the account was stored since that snapshot.
 *
 * Both statements are built once, with placeholders, and prepared once per connection: building them per
 * request cost the server's thread about 0.65 ms per transfer (docs/benchmarks.md).
 */
import { getTableColumns, sql } from 'drizzle-orm';
import type { WithSubquery } from 'drizzle-orm/subquery';
import type { Database } from '../../storage/database.ts';
import { accounts, transfers } from '../../storage/schema.ts';
import type { AccountRow } from '../accounts.ts';

/** What a transfer row is inserted with. */
export type NewTransfer = typeof transfers.$inferInsert;

/** The sender as the checks need it: its row, and the D-026 sums in wei. */
export type SenderState = { account: AccountRow; spentToday: bigint; unmined: bigint };

/** What D-026's checks are measured against. */
export type LimitWindow = {
  /** 00:00 UTC of the transfer's day. */
  midnight: Date;
  /** The sender's transaction count at the sealed block the balance was read at; transfers at or above it are not in that balance. */
  unminedFrom: number;
};

/** What the guarded insert checks again, atomically with the insert. */
export type Guard = {
  amountWei: bigint;
  window: LimitWindow /** the balance at the sealed block; undefined when the node did not answer */;
  balanceWei: bigint | undefined;
};

/** CTEs that read the stored transfer (named by `transferCte`), with placeholders filled per transfer. */
export type HookCtes = (db: Database, transferCte: string) => WithSubquery[];

const p = sql.placeholder;
const counted = sql`${transfers.status} in ('pending', 'confirmed')`;
const spentToday = sql`coalesce((select sum(${transfers.amountWei}) from ${transfers}
  where ${transfers.accountId} = ${p('account_id')} and ${counted} and ${transfers.createdAt} >= ${p('midnight')}::timestamptz), 0)`;
const unmined = sql`coalesce((select sum(${transfers.amountWei}) from ${transfers}
  where ${transfers.accountId} = ${p('account_id')} and ${counted} and ${transfers.nonce} >= ${p('unmined_from')}::bigint), 0)`;

const TRANSFER_KEYS = Object.keys(getTableColumns(transfers)) as (keyof NewTransfer)[];

const windowValues = (accountId: string, window: LimitWindow) => ({
  account_id: accountId,
  midnight: window.midnight.toISOString(),
  unmined_from: window.unminedFrom,
});

function senderStateQuery(db: Database) {
  return (
    db
      .select({
        account: getTableColumns(accounts),
        spentToday: sql<string>`${spentToday}::text`,
        unmined: sql<string>`${unmined}::text`,
      })
      .from(accounts)
      .where(sql`${accounts.id} = ${p('account_id')}`)
      // Named: PostgreSQL parses and plans it once per connection (PGlite ignores names).
      .prepare('transfer_sender_state')
  );
}

function guardedInsertQuery(db: Database, hooks?: HookCtes) {
  const allocated = db.$with('allocated', { nonce: sql<number>`nonce` }).as(sql`
    update ${accounts} set next_nonce = ${accounts.nextNonce} + 1
    where ${accounts.id} = ${p('account_id')} and ${accounts.nextNonce} = ${p('expected_nonce')}::bigint
      and ${accounts.status} = 'approved'
      and ${accounts.singleLimitWei} >= ${p('amount')}::numeric
      and ${accounts.dailyLimitWei} >= ${p('amount')}::numeric + ${spentToday}
      and (${p('balance')}::numeric is null or ${p('balance')}::numeric - ${unmined} >= ${p('amount')}::numeric)
    returning ${accounts.nextNonce} - 1 as nonce`);
  // insert … select … from allocated: the record exists only if the nonce was allocated. drizzle-orm's
  // insert-from-select names every column of the table in order, so the select lists them all, typed.
  const columns = Object.entries(getTableColumns(transfers)).map(([key, column]) =>
    key === 'nonce' ? sql`allocated.nonce` : sql`${sql.param(p(`t_${key}`), column)}::${sql.raw(column.getSQLType())}`,
  );
  const storedTransfer = db.$with('stored_transfer').as(
    db
      .insert(transfers)
      .select(sql`select ${sql.join(columns, sql`, `)} from allocated`)
      .returning(),
  );
  return db
    .with(allocated, storedTransfer, ...(hooks?.(db, 'stored_transfer') ?? []))
    .select()
    .from(storedTransfer)
    .prepare(hooks ? 'transfer_insert_guarded_with_hooks' : 'transfer_insert_guarded');
}

/** The transfer statements of one database handle, built once; inside a transaction they are built for it. */
export class TransferStatements {
  private readonly outside: {
    state: ReturnType<typeof senderStateQuery>;
    insert: ReturnType<typeof guardedInsertQuery>;
    insertWithHooks?: ReturnType<typeof guardedInsertQuery>;
  };

  constructor(
    db: Database,
    private readonly hooks?: HookCtes,
  ) {
    this.outside = {
      state: senderStateQuery(db),
      insert: guardedInsertQuery(db),
      insertWithHooks: hooks && guardedInsertQuery(db, hooks),
    };
  }

  /** Statement 1: the account and its sums, or undefined when it does not exist. */
  async readSenderState(accountId: string, window: LimitWindow): Promise<SenderState | undefined> {
    const [row] = await this.outside.state.execute(windowValues(accountId, window));
    return row && { account: row.account, spentToday: BigInt(row.spentToday), unmined: BigInt(row.unmined) };
  }

  /**
   * Statement 2, in `tx` when given. `transfer.nonce` is the nonce the transaction was signed with; the record
   * is stored only if the allocation succeeds. `hookValues` fill the hooks' CTEs (none: no hooks run).
   * Returns the stored row, or undefined when the guard did not hold (read again, retry).
   */
  async insertGuarded(
    transfer: NewTransfer & { accountId: string },
    guard: Guard,
    hookValues?: Record<string, unknown>,
    tx?: Database,
  ) {
    const withHooks = hookValues !== undefined && this.hooks !== undefined;
    const query = tx
      ? guardedInsertQuery(tx, withHooks ? this.hooks : undefined)
      : withHooks
        ? this.outside.insertWithHooks!
        : this.outside.insert;
    const values: Record<string, unknown> = {
      ...windowValues(transfer.accountId, guard.window),
      expected_nonce: transfer.nonce,
      amount: guard.amountWei.toString(),
      balance: guard.balanceWei?.toString() ?? null,
      ...hookValues,
    };
    for (const key of TRANSFER_KEYS) values[`t_${key}`] = transfer[key] ?? null;
    const [row] = await query.execute(values);
    return row;
  }
}
