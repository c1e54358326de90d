/**
 * POST /transfers behaviour (spec "Behaviour of POST /transfers"):
 * 1. "The transfer is signed on the server with the account's encrypted private key";
 * 2. "The transfer record is stored before the broadcast. If the broadcast fails the record is marked failed
 *    and is not retried";
 * 3. "When the recipient is on the platform, memo is encrypted with the recipient's ML-KEM-768 public key".
 * Nonces: allocated under the account's row lock and an in-process per-account mutex held through the
 * broadcast, so concurrent transfers never collide, and a failed broadcast gives its nonce back (no gaps).
 */
import { and, eq, gte, or, sql } from 'drizzle-orm';
import { bytesToHex, getAddress, keccak256, toBytes, type Hex } from 'viem';
import { memoEnvelope } from '../../crypto/index.ts';
import { CHAIN_ID } from '../../chain/anvil.ts';
import { UpstreamRpcError, UpstreamUnavailableError, type Upstream } from '../../chain/upstream.ts';
import type { Database } from '../../storage/database.ts';
import { accounts, transfers } from '../../storage/schema.ts';
import { badRequest } from '../../server/http/errors.ts';
import type { AccountRow, AccountStore } from '../accounts.ts';
import { transferReference } from '../ids.ts';
import { formatUnits } from '../money.ts';
import { KeyedMutex } from './locks.ts';

/** A transfer record. */
export type TransferRow = typeof transfers.$inferSelect;

/** What a transfer is for, beyond POST /transfers: settling a pacs.008 payment or returning a payment (issue 5). */
export type TransferPurpose = { settles: string } | { returns: string; reason?: string };

/** A validated transfer request. */
export type TransferInput = { accountId: string; to: Hex; amountWei: bigint; memo?: string; purpose?: TransferPurpose };

/**
 * Work that must commit or roll back with the transfer's own state changes: the payment lifecycle's
 * transactional outbox (issue 5: "an event is stored in the same database transaction as the change that
 * causes it"). `tx` is the transaction; a throw rolls the change back.
 */
export type TransferHooks = {
  /** In the transaction that stores the record (before the broadcast). */
  stored(tx: Database, row: TransferRow, input: TransferInput): Promise<void>;
  /** In the transaction that moves the record out of pending (confirmed or failed). */
  settled(tx: Database, row: TransferRow): Promise<void>;
};

/** No hooks (funding, tests). */
export const NO_TRANSFER_HOOKS: TransferHooks = { stored: async () => undefined, settled: async () => undefined };

/** Intrinsic gas of a call to an externally owned account: 21,000 plus 16 per non-zero and 4 per zero data byte (EIP-2028). */
export function intrinsicGas(data: Hex): bigint {
  let gas = 21_000n;
  for (let i = 2; i < data.length; i += 2) gas += data.slice(i, i + 2) === '00' ? 4n : 16n;
  return gas;
}

/** The UTC midnight before `now` (D-026: daily limits count UTC days). */
const utcMidnight = (now: Date) => new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));

/** Creates, signs and broadcasts transfers. */
export class TransferEngine {
  private readonly mutex = new KeyedMutex();
  /**
   * Test seam of the in-process reference target (conformance/targets/reference.ts) only: awaited between the
   * stored record and its broadcast, the window D-078 reconciles (a crash, a stopped node). Never set in
   * production, where it is undefined and costs one property read.
   */
  beforeBroadcast: ((row: TransferRow) => Promise<void>) | undefined = undefined;

  /** Wires the engine to storage and the chain node; `onAccepted` lets the chain seal a block (instant mode). */
  constructor(
    private readonly db: Database,
    private readonly accountStore: AccountStore,
    private readonly upstream: Upstream,
    private readonly now: () => Date,
    private readonly onAccepted: () => void = () => undefined,
    private readonly hooks: TransferHooks = NO_TRANSFER_HOOKS,
  ) {}

  /** Runs the whole flow; returns the stored record (pending, or failed when the broadcast failed). */
  async create(input: TransferInput): Promise<TransferRow> {
    return this.mutex.run(input.accountId, async () => {
      const row = await this.persistSigned(input);
      if (this.beforeBroadcast) await this.beforeBroadcast(row);
      const answer = await this.upstream.send('eth_sendRawTransaction', [row.signedTx]).catch((error: Error) => ({ error: { message: error.message } }));
      if ('error' in answer && answer.error) return this.markBroadcastFailed(row, answer.error.message);
      const [updated] = await this.db.update(transfers).set({ broadcast: true }).where(eq(transfers.txRef, row.txRef)).returning();
      this.onAccepted();
      return updated!;
    });
  }

  /** Validates against the account (status, limits, balance), signs with the next nonce and stores the record. */
  private async persistSigned(input: TransferInput): Promise<TransferRow> {
    const now = this.now();
    // Only a memo needs the recipient (D-032: sealed to an on-platform recipient's key).
    const recipient = input.memo ? await this.accountStore.findByAddress(input.to) : undefined;
    const data = this.memoData(input.memo, recipient, input.to);
    return this.db.transaction(async (tx) => {
      const [account] = await tx.select().from(accounts).where(eq(accounts.id, input.accountId)).for('update');
      if (!account) throw badRequest(`"fromAccountId" ${input.accountId} does not exist`, 'UNKNOWN_ACCOUNT');
      if (account.status !== 'approved') {
        throw badRequest(`account ${account.id} is ${account.status}; only approved accounts may send`, 'ACCOUNT_NOT_APPROVED');
      }
      if (input.amountWei > BigInt(account.singleLimitWei)) {
        throw badRequest(`"amount" ${formatUnits(input.amountWei, 2)} exceeds the account's singleLimit ${formatUnits(BigInt(account.singleLimitWei), 2)}`, 'SINGLE_LIMIT_EXCEEDED');
      }
      // One statement for both sums (the account's row lock is held: fewer statements, a shorter lock).
      const midnight = utcMidnight(now);
      const [{ today, inFlight } = { today: null, inFlight: null }] = await tx
        .select({
          today: sql<string | null>`sum(${transfers.amountWei}) filter (where ${transfers.status} in ('pending', 'confirmed') and ${transfers.createdAt} >= ${midnight})`,
          inFlight: sql<string | null>`sum(${transfers.amountWei}) filter (where ${transfers.status} = 'pending')`,
        })
        .from(transfers)
        .where(and(eq(transfers.accountId, account.id), or(eq(transfers.status, 'pending'), gte(transfers.createdAt, midnight))));
      const spentToday = BigInt(today ?? 0);
      if (spentToday + input.amountWei > BigInt(account.dailyLimitWei)) {
        throw badRequest(
          `"amount" ${formatUnits(input.amountWei, 2)} plus ${formatUnits(spentToday, 2)} already sent today exceeds the account's dailyLimit ${formatUnits(BigInt(account.dailyLimitWei), 2)}`,
          'DAILY_LIMIT_EXCEEDED',
        );
      }
      // When the node does not answer, the balance cannot be read: the record is still stored and its broadcast
      // fails, which is the spec's "broadcast fails" path (the transfer is marked failed, never retried).
      // Balance and gas estimate go in one JSON-RPC batch: one round trip while the row lock is held.
      const [balance, estimate] =
        (await this.unlessNodeDown(() =>
          this.upstream.batch([
            { method: 'eth_getBalance', params: [account.address, 'latest'] },
            { method: 'eth_estimateGas', params: [{ from: account.address, to: input.to, value: `0x${input.amountWei.toString(16)}`, data }] },
          ]),
        )) ?? [];
      if (balance?.error) throw new UpstreamRpcError(balance.error);
      const spendable = balance === undefined ? undefined : BigInt(balance.result as string) - BigInt(inFlight ?? 0);
      if (spendable !== undefined && input.amountWei > spendable) {
        throw badRequest(`"amount" ${formatUnits(input.amountWei, 2)} exceeds the spendable balance ${formatUnits(spendable, 2)}`, 'INSUFFICIENT_BALANCE');
      }
      if (estimate?.error) throw new UpstreamRpcError(estimate.error);
      let gas = estimate === undefined ? intrinsicGas(data) : BigInt(estimate.result as string);
      for (;;) {
        const signedTx = await this.accountStore.signTransaction(account, {
          type: 'legacy', chainId: CHAIN_ID, nonce: account.nextNonce, to: getAddress(input.to), value: input.amountWei,
          // spec: "The gas price is always 0"
          gasPrice: 0n, gas, data,
        });
        const [row] = await tx
          .insert(transfers)
          .values({
            txRef: transferReference(now), kind: 'transfer', accountId: account.id, fromAddress: account.address, toAddress: getAddress(input.to),
            amountWei: input.amountWei.toString(), nonce: account.nextNonce, txHash: keccak256(signedTx), signedTx, status: 'pending', broadcast: false, createdAt: now,
          })
          .onConflictDoNothing({ target: transfers.txHash })
          .returning();
        if (row) {
          await tx.update(accounts).set({ nextNonce: account.nextNonce + 1 }).where(eq(accounts.id, account.id));
          await this.hooks.stored(tx, row, input);
          return row;
        }
        // D-078: a failed broadcast gave this nonce back, and the same recipient, amount and data sign to the very
        // same bytes (RFC 6979 signatures are deterministic), whose hash the failed record holds. One more unit of
        // gas limit (free at gas price 0) makes a distinct transaction.
        gas += 1n;
      }
    });
  }

  /** Runs a node read; undefined when the node is unreachable (other errors propagate). */
  private async unlessNodeDown<T>(read: () => Promise<T>): Promise<T | undefined> {
    try {
      return await read();
    } catch (error) {
      if (error instanceof UpstreamUnavailableError) return undefined;
      throw error;
    }
  }

  /** D-032: an envelope to an on-platform recipient's ML-KEM-768 key; plain UTF-8 otherwise. */
  private memoData(memo: string | undefined, recipient: AccountRow | undefined, to: Hex): Hex {
    if (!memo) return '0x';
    if (!recipient) return bytesToHex(toBytes(memo));
    return bytesToHex(memoEnvelope.seal(recipient.mlkemPublicKey, memo, to));
  }

  /** spec: "the record is marked failed and is not retried"; the nonce goes back when it was the last one. */
  private async markBroadcastFailed(row: TransferRow, reason: string): Promise<TransferRow> {
    return this.db.transaction(async (tx) => {
      const [failed] = await tx
        .update(transfers)
        .set({ status: 'failed', failReason: `broadcast failed: ${reason}` })
        .where(eq(transfers.txRef, row.txRef))
        .returning();
      await tx
        .update(accounts)
        .set({ nextNonce: row.nonce })
        .where(and(eq(accounts.id, row.accountId!), eq(accounts.nextNonce, row.nonce + 1)));
      await this.hooks.settled(tx, failed!);
      return failed!;
    });
  }
}
