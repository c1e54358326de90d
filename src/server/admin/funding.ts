/**
 * Funding an address on the local chain (D-061): a value transfer from the funding account (D-151), waited for until
 * mined, and recorded as a `transfers` row of kind `funding` so the account's statement shows the credit
 * (direction `in`, D-003). Like a transfer, the record is stored before the broadcast (as the spec's POST /transfers rule 2 has it), so the
 * confirmer's reconciliation covers a crash between the two; a transaction the node refuses never reached
 * the chain, so its record is removed and the error answered.
 */
import { and, eq, max, sql } from 'drizzle-orm';
import pg from 'pg';
import { getAddress, keccak256, type Hex } from 'viem';
import type { HDAccount } from 'viem/accounts';
import type { Receipt, ReceiptOrNull } from '@svckit/sdk/chain/types';
import { CHAIN_ID } from '../../node/anvil.ts';
import type { ChainRuntime } from '../../node/runtime.ts';
import { dateOf, type Clock } from '@svckit/sdk/clock';
import { transferReference } from '../../ledger/ids.ts';
import { formatUnits } from '../../ledger/money.ts';
import type { TransferRow } from '../../ledger/transfers/engine.ts';
import { KeyedMutex } from '../../ledger/transfers/locks.ts';
import type { Database } from '../../storage/database.ts';
import { transfers } from '../../storage/schema.ts';
import { UpstreamRpcError } from '../../node/upstream.ts';
import { ErrorCode, RestError } from '../http/errors.ts';

/** How long a funding waits for its block before giving up (the spec's block period is 2 s). */
const MINING_TIMEOUT_MS = 60_000;

/**
 * D-191: the key of the PostgreSQL advisory lock that gives one instance at a time the funding account's turn
 * when several share one chain (SVC_SHARED_CHAIN, D-183). Any fixed number no other lock of svckit uses.
 */
export const FUNDING_TURN_LOCK = 0x5356_4644n;

/**
 * D-191: how long a funding waits for another instance's turn before a 503. A turn lasts one store and one
 * broadcast; a holder whose connection is half-open keeps the lock until PostgreSQL drops the connection.
 */
const FUNDING_TURN_WAIT_MS = 10_000;

/** A PostgreSQL lock_timeout (SQLSTATE 55P03), as node-postgres reports it (Drizzle wraps it in `cause`). */
function isLockTimeout(error: unknown): boolean {
  for (let e = error as { code?: string; cause?: unknown } | undefined; e; e = e.cause as typeof e)
    if (e.code === '55P03') return true;
  return false;
}

/** True when `db` is a PostgreSQL pool (DATABASE_URL), the only database several instances can share. */
function onPostgres(db: Database): boolean {
  return (db as unknown as { $client?: unknown }).$client instanceof pg.Pool;
}

/** A funding that was mined: its record (confirmed) and the account's balance afterwards. */
export type Funding = { row: TransferRow; balanceWei: bigint };

/** Sends funding transactions from the server-held funding account of the embedded chain (D-151). */
export class Faucet {
  /** One funding-account nonce at a time: concurrent fundings must neither collide nor leave gaps. */
  private readonly mutex = new KeyedMutex();
  /** The next sealed block, while someone waits for it. */
  private sealed: Promise<void> | undefined;

  /** Uses the database for the records and the embedded chain to send. */
  constructor(
    private readonly db: Database,
    private readonly chain: ChainRuntime,
    private readonly clock: Clock,
  ) {}

  /**
   * Sends `amountWei` to `address`, waits until mined and returns the confirmed record and new balance.
   * `allow: false` leaves the allow-list alone: the caller listed the address itself, and a removal made while
   * the funding runs must stand (D-220).
   */
  async fund(address: Hex, amountWei: bigint, options: { allow?: boolean } = {}): Promise<Funding> {
    try {
      return await this.fundOnce(getAddress(address), amountWei, options.allow ?? true);
    } catch (error) {
      // D-150: an error of the node is a 503 in the admin error shape, never a 500. (UpstreamUnavailableError
      // is answered 503 by the error handler, without the node's address.)
      if (error instanceof UpstreamRpcError)
        throw new RestError(ErrorCode.FUNDING_REFUSED, `the chain node refused a funding call: ${error.message}`);
      throw error;
    }
  }

  private async fundOnce(address: Hex, amountWei: bigint, allow: boolean): Promise<Funding> {
    const funder = this.chain.fundingAccount;
    // D-061: only the embedded chain has a funding account; the handlers refuse earlier with the same code (D-159).
    if (!funder) throw new RestError(ErrorCode.FUNDING_UNAVAILABLE, 'funding is only available on the local chain');
    // D-050: "accounts created or funded through the admin API" may send.
    if (allow) await this.chain.permissions?.allow(address, 'funded');
    const sent = await this.mutex.run(funder.address, () => this.inTurn(() => this.send(funder, address, amountWei)));
    // Instant mining (period 0) seals a block now; with a block period the next block includes it. The
    // listener goes first so that a block sealed before the first receipt poll still wakes the wait.
    void this.nextSealed();
    this.chain.producer?.onTransaction();
    const receipt = await this.receipt(sent.txHash as Hex);
    const block = await this.chain.upstream.call<{ timestamp: Hex }>('eth_getBlockByNumber', [
      receipt.blockNumber,
      false,
    ]);
    const confirmed = receipt.status === '0x1';
    // The confirmer may have settled the row already (it watches every pending record): same values.
    await this.db
      .update(transfers)
      .set({
        status: confirmed ? 'confirmed' : 'failed',
        failReason: confirmed ? null : 'the transaction was mined but reverted (receipt status 0x0)',
        blockNumber: Number(BigInt(receipt.blockNumber)),
        blockTimestamp: Number(BigInt(block.timestamp)),
      })
      .where(eq(transfers.txRef, sent.txRef));
    const [row] = await this.db.select().from(transfers).where(eq(transfers.txRef, sent.txRef));
    // D-150: the recipient's code refused the value (the funding has no gas to run it): the address's state
    // forbids the funding, a 409; the failed record stays in the statement as the confirmer would leave it.
    if (!confirmed)
      throw new RestError(
        ErrorCode.FUNDING_REVERTED,
        `funding ${sent.txRef} (${sent.txHash}) was mined but reverted: ${address} does not accept a plain value transfer`,
      );
    const balance = await this.chain.upstream.call<Hex>('eth_getBalance', [address, 'latest']);
    return { row: row!, balanceWei: BigInt(balance) };
  }

  /**
   * D-191: on a shared chain every instance funds from the same account (one database, one SVC_KEK), so its
   * turn is taken across instances too: a transaction-scoped advisory lock, held on one connection of the pool
   * while `work` stores the record on another (committed before the broadcast, as D-078 needs) and broadcasts.
   * A refused broadcast then gives its nonce back simply by removing its record: no other funding took a later
   * one meanwhile. Alone on its database (embedded chain, PGlite), the in-process mutex is the whole turn.
   */
  private inTurn<T>(work: () => Promise<T>): Promise<T> {
    if (this.chain.mode !== 'shared' || !onPostgres(this.db)) return work();
    return this.db
      .transaction(async (tx) => {
        await tx.execute(sql.raw(`set local lock_timeout = ${FUNDING_TURN_WAIT_MS}`));
        await tx.execute(sql`select pg_advisory_xact_lock(${FUNDING_TURN_LOCK}::bigint)`);
        return work();
      })
      .catch((error: unknown) => {
        if (!isLockTimeout(error)) throw error;
        throw new RestError(
          ErrorCode.UNAVAILABLE,
          `another instance held the funding account's turn for ${FUNDING_TURN_WAIT_MS / 1000} s; try again later`,
        );
      });
  }

  /**
   * Signs with the funding account's next nonce, stores the record, then broadcasts. The next nonce is the
   * node's pending count, or one past a stored funding the node does not hold yet (D-191: an instance that
   * died between the store and the broadcast; the confirmer sends it again, D-184, and this one follows it).
   */
  private async send(funder: HDAccount, to: Hex, amountWei: bigint): Promise<TransferRow> {
    const from = funder.address;
    const [[nonceHex, balanceHex], [stored]] = await Promise.all([
      this.chain.upstream.batchResults<Hex>([
        { method: 'eth_getTransactionCount', params: [from, 'pending'] },
        { method: 'eth_getBalance', params: [from, 'pending'] },
      ]),
      this.db
        .select({ last: max(transfers.nonce) })
        .from(transfers)
        .where(and(eq(transfers.status, 'pending'), eq(transfers.kind, 'funding'), eq(transfers.fromAddress, from))),
    ]);
    if (amountWei > BigInt(balanceHex!)) {
      // As POST /transfers refuses an amount above the spendable balance with a 400 (D-026).
      throw new RestError(
        ErrorCode.INSUFFICIENT_BALANCE,
        `"amount" ${formatUnits(amountWei, 2)} exceeds the local chain's funding balance ${formatUnits(BigInt(balanceHex!), 2)}`,
      );
    }
    const nonce = Math.max(Number(BigInt(nonceHex!)), stored?.last == null ? 0 : stored.last + 1);
    const signedTx = await funder.signTransaction({
      type: 'legacy',
      chainId: CHAIN_ID,
      nonce,
      to,
      value: amountWei,
      // spec: "The gas price is always 0"; a value transfer to an account without code costs exactly 21,000 gas.
      gasPrice: 0n,
      gas: 21_000n,
    });
    const now = dateOf(this.clock);
    const [row] = await this.db
      .insert(transfers)
      .values({
        txRef: transferReference(now),
        kind: 'funding',
        accountId: null,
        fromAddress: from,
        toAddress: to,
        amountWei: amountWei.toString(),
        nonce,
        txHash: keccak256(signedTx),
        signedTx,
        status: 'pending',
        createdAt: now,
      })
      .returning();
    const answer = await this.chain.upstream
      .send('eth_sendRawTransaction', [signedTx])
      .catch((error: unknown) => ({ unreachable: error }));
    if ('unreachable' in answer || answer.error) {
      // Nothing reached the chain and the funding nonce is still free: no credit to show in the statement.
      // (Keeping the row would also block the identical signed bytes of a retry with the same amount.)
      await this.db.delete(transfers).where(eq(transfers.txRef, row!.txRef));
      // D-150: 503 in the admin error shape; an unreachable node goes to the error handler, which names no address.
      if ('unreachable' in answer) throw answer.unreachable;
      throw new RestError(
        ErrorCode.FUNDING_REFUSED,
        `funding ${row!.txRef}: the chain node refused the transaction: ${answer.error!.message}`,
      );
    }
    return row!;
  }

  /** Polls the receipt after every sealed block (and at least every 250 ms) until it is there. */
  private async receipt(txHash: Hex): Promise<Receipt> {
    const deadline = performance.now() + MINING_TIMEOUT_MS;
    for (;;) {
      const receipt = await this.chain.upstream.call<ReceiptOrNull>('eth_getTransactionReceipt', [txHash]);
      if (receipt) return receipt;
      // D-150: the record stays pending and the confirmer settles it when the block comes.
      if (performance.now() > deadline)
        throw new RestError(
          ErrorCode.FUNDING_NOT_MINED,
          `funding transaction ${txHash} was not mined within ${MINING_TIMEOUT_MS / 1000} s; its record stays pending`,
        );
      await this.nextBlock(250);
    }
  }

  /** The next sealed block of the embedded producer; concurrent waiters share one listener. */
  private nextSealed(): Promise<void> | undefined {
    const producer = this.chain.producer;
    if (producer && !this.sealed) {
      this.sealed = new Promise((resolve) => producer.once('sealed', () => resolve()));
      void this.sealed.then(() => (this.sealed = undefined));
    }
    return this.sealed;
  }

  /** Resolves on the next sealed block or after `ms`, whichever comes first. */
  private nextBlock(ms: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const elapsed = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
    const sealed = this.nextSealed();
    return Promise.race([elapsed, ...(sealed ? [sealed] : [])]).finally(() => clearTimeout(timer));
  }
}
