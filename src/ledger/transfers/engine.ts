/**
 * POST /transfers behaviour (spec "Behaviour of POST /transfers"):
 * 1. "The transfer is signed on the server with the account's encrypted private key";
 * 2. "The transfer record is stored before the broadcast. If the broadcast fails the record is marked failed
 *    and is not retried";
 * 3. "When the recipient is on the platform, memo is encrypted with the recipient's ML-KEM-768 public key".
 * Nonces: allocated by a compare-and-increment on the account row in the statement that stores the record
 * (guarded-insert.ts), under an in-process per-account mutex held through the broadcast, so concurrent
 * transfers never collide, and a failed broadcast gives its nonce back (no gaps). Every node call has a
 * time-out (D-140), so a hung node holds an account's turn for a bounded time only.
 */
import { and, eq } from 'drizzle-orm';
import { bytesToHex, getAddress, keccak256, toBytes, type Hex } from 'viem';
import { memoEnvelope } from '@svckit/sdk/crypto';
import { CHAIN_ID } from '../../node/anvil.ts';
import { UpstreamRpcError, UpstreamUnavailableError, type RpcResponse, type Upstream } from '../../node/upstream.ts';
import { dateOf, type Clock } from '@svckit/sdk/clock';
import type { Database } from '../../storage/database.ts';
import { accounts, transfers } from '../../storage/schema.ts';
import { isUniqueViolation } from '../../storage/errors.ts';
import { LedgerError, LedgerErrorCode } from '../errors.ts';
import type { AccountRow, AccountStore } from '../accounts.ts';
import { transferReference } from '../ids.ts';
import { formatUnits } from '../money.ts';
import {
  TransferStatements,
  type HookCtes,
  type LimitWindow,
  type NewTransfer,
  type SenderState,
} from './guarded-insert.ts';
import { KeyedMutex } from './locks.ts';
import { dbGroup, type Tracing } from '../../server/telemetry/tracing.ts';

export type { NewTransfer } from './guarded-insert.ts';

/**
 * How often the engine reads, signs and tries to store one transfer before it gives up with a 503. Each
 * retry means the account changed between the read and the guarded insert (another instance, an
 * administrator); the next read sees the change, so one retry almost always suffices.
 */
const MAX_STORE_ATTEMPTS = 8;

/** A transfer record. */
export type TransferRow = typeof transfers.$inferSelect;

/** What a transfer is for, beyond POST /transfers: settling a pacs.008 payment or returning a payment (D-049). */
export type TransferPurpose = { settles: string } | { returns: string; reason?: string };

/** A validated transfer request. */
export type TransferInput = { accountId: string; to: Hex; amountWei: bigint; memo?: string; purpose?: TransferPurpose };

/**
 * Work that must commit or roll back with the transfer's own state changes: the payment lifecycle's
 * transactional outbox ("an event is stored in the same database transaction as the change that
 * causes it"). `tx` is the transaction; a throw rolls the change back.
 */
export type TransferHooks = {
  /** In the transaction that stores the record (before the broadcast). */
  stored(tx: Database, row: TransferRow, input: TransferInput): Promise<void>;
  /** In the transaction that moves records out of pending (confirmed or failed); a block's worth at a time. */
  settled(tx: Database, rows: TransferRow[]): Promise<void>;
  storedWith?: StoredWith;
};

/**
 * Optional: the work of `stored` as common table expressions of the very statement that inserts the
 * transfer, reading from it so that they happen only if the insert does: one statement fewer per transfer.
 * `ctes` are built once with `sql.placeholder`s (the statement is prepared once per connection); `values`
 * fills them for one transfer, or is undefined when the transfer is not for them (then `stored` runs).
 */
export type StoredWith = {
  ctes: HookCtes;
  values(transfer: NewTransfer, input: TransferInput): Record<string, unknown> | undefined;
};

/** No hooks (funding, tests). */
export const NO_TRANSFER_HOOKS: TransferHooks = { stored: async () => undefined, settled: async () => undefined };

/** Intrinsic gas of a call to an externally owned account: 21,000 plus 16 per non-zero and 4 per zero data byte (EIP-2028). */
export function intrinsicGas(data: Hex): bigint {
  let gas = 21_000n;
  for (let i = 2; i < data.length; i += 2) gas += data.slice(i, i + 2) === '00' ? 4n : 16n;
  return gas;
}

/**
 * D-026, checked against the read state (the guarded insert checks the same again, atomically): status,
 * singleLimit, dailyLimit, and the spendable balance when the node answered.
 */
function checkLimits(
  input: TransferInput,
  { account, spentToday, unmined }: SenderState,
  view: NodeView | undefined,
): void {
  if (account.status !== 'approved') {
    throw new LedgerError(
      LedgerErrorCode.ACCOUNT_NOT_APPROVED,
      `account ${account.id} is ${account.status}; only approved accounts may send`,
    );
  }
  if (input.amountWei > BigInt(account.singleLimitWei)) {
    throw new LedgerError(
      LedgerErrorCode.SINGLE_LIMIT_EXCEEDED,
      `"amount" ${formatUnits(input.amountWei, 2)} exceeds the account's singleLimit ${formatUnits(BigInt(account.singleLimitWei), 2)}`,
    );
  }
  if (spentToday + input.amountWei > BigInt(account.dailyLimitWei)) {
    throw new LedgerError(
      LedgerErrorCode.DAILY_LIMIT_EXCEEDED,
      `"amount" ${formatUnits(input.amountWei, 2)} plus ${formatUnits(spentToday, 2)} already sent today exceeds the account's dailyLimit ${formatUnits(BigInt(account.dailyLimitWei), 2)}`,
    );
  }
  // D-026: spendable = the balance at the sealed block, less the transfers that block does not contain yet.
  const spendable = view === undefined ? undefined : view.balance - unmined;
  if (spendable !== undefined && input.amountWei > spendable) {
    throw new LedgerError(
      LedgerErrorCode.INSUFFICIENT_BALANCE,
      `"amount" ${formatUnits(input.amountWei, 2)} exceeds the spendable balance ${formatUnits(spendable, 2)}`,
    );
  }
}

/**
 * D-141: the node's gas estimate failed, so the transaction cannot succeed (a recipient contract that reverts
 * on receive): 400 with the node's reason, and nothing is stored, as with any other refused request content.
 */
function refusedByNode({ error }: UpstreamRpcError): LedgerError {
  const reason = error.message.slice(0, 300);
  // EIP-1474 code 3 is "execution reverted"; nodes also say so in the message only.
  if (error.code === 3 || /revert/i.test(reason))
    return new LedgerError(LedgerErrorCode.TRANSFER_REVERTED, `the recipient reverts the transfer: ${reason}`);
  return new LedgerError(LedgerErrorCode.TRANSFER_REFUSED, `the chain node refuses the transfer: ${reason}`);
}

/** The UTC midnight before `now` (D-026: daily limits count UTC days). */
const utcMidnight = (now: Date) => new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));

/** What the engine works with. */
export type TransferEngineDeps = {
  db: Database;
  accounts: AccountStore;
  upstream: Upstream;
  /** The time of a transfer's reference, record and daily limit window. */
  clock: Clock;
  /** Called after a successful broadcast, so the chain can seal a block (instant mode). */
  onAccepted?: () => void;
  /** D-140: called for a stored transfer whose broadcast had no clear outcome (the confirmer looks it up). */
  onUnsure?: (row: TransferRow) => void;
  hooks?: TransferHooks;
  /** The newest sealed block the stack knows without asking the node (embedded chain); undefined: ask it. */
  sealedHead?: () => number | undefined;
};

/**
 * The sender's state at one sealed block, read from the node before the transfer is stored (no node round
 * trip is made inside the store). Balance and nonce come from the same block, so the
 * transfers the block does not contain yet are exactly those with a nonce at or above `nonce` (D-026).
 */
type NodeView = { balance: bigint; nonce: number; gas: { error: UpstreamRpcError } | { limit: bigint } };

/** Creates, signs and broadcasts transfers. */
export class TransferEngine {
  private readonly mutex = new KeyedMutex();
  private readonly hooks: TransferHooks;
  private readonly statements: TransferStatements;
  /**
   * Test seam of the in-process reference target (conformance/targets/reference.ts) only: awaited between the
   * stored record and its broadcast, the window D-078 reconciles (a crash, a stopped node). Never set in
   * production, where it is undefined and costs one property read.
   */
  beforeBroadcast: ((row: TransferRow) => Promise<void>) | undefined = undefined;

  /** D-266, D-267: the stack's tracing (the store's query group, each transfer's life span). Undefined: traces off. */
  tracing: Tracing | undefined = undefined;

  /** Wires the engine to storage and the chain node. */
  constructor(private readonly deps: TransferEngineDeps) {
    this.hooks = deps.hooks ?? NO_TRANSFER_HOOKS;
    this.statements = new TransferStatements(deps.db, this.hooks.storedWith?.ctes);
  }

  /**
   * Runs the whole flow; returns the stored record (pending, or failed when the broadcast failed).
   * `alsoInTransaction` runs in the transaction that stores the record (the Idempotency-Key's response, D-046).
   */
  async create(
    input: TransferInput,
    alsoInTransaction?: (tx: Database, row: TransferRow) => Promise<void>,
  ): Promise<TransferRow> {
    const address = await this.deps.accounts.addressOf(input.accountId);
    if (!address)
      throw new LedgerError(LedgerErrorCode.UNKNOWN_ACCOUNT, `"fromAccountId" ${input.accountId} does not exist`);
    // Only a memo needs the recipient (D-032: sealed to an on-platform recipient's key).
    const recipient = input.memo ? await this.deps.accounts.findByAddress(input.to) : undefined;
    const data = this.memoData(input.memo, recipient, input.to);
    // When the node does not answer, nothing can be read: the record is still stored and its broadcast
    // fails, which is the spec's "broadcast fails" path (the transfer is marked failed, never retried).
    // Read before the account's turn: balance and count come from one sealed block, which D-026 accounts
    // for whichever block it is, so the read need not be ordered with the account's other transfers.
    const view = await this.unlessNodeDown(() => this.readNode(address, input, data));
    // The account's turn: its nonce is allocated, stored and broadcast in order, one transfer at a time.
    return this.mutex.run(input.accountId, async () => {
      const row = await dbGroup(this.tracing, 'transfer.store', () =>
        this.persistSigned(input, data, view, alsoInTransaction),
      );
      this.tracing?.transfers.stored(row.txRef, { kind: row.kind, txHash: row.txHash });
      if (this.beforeBroadcast) await this.beforeBroadcast(row);
      const outcome = await this.broadcast(row);
      if (outcome.refused !== undefined) {
        const failed = await dbGroup(this.tracing, 'transfer.fail', () =>
          this.markBroadcastFailed(row, outcome.refused!),
        );
        this.tracing?.transfers.settled(row.txRef, 'failed');
        return failed;
      }
      // Nothing more is written: the confirmer settles the record from its receipt, and after a crash D-078
      // looks every pending record up on the node. D-140: a broadcast with no clear outcome stays pending too
      // (the node may have the transaction), and the confirmer looks it up at once.
      if (outcome.unsure) this.deps.onUnsure?.(row);
      this.deps.onAccepted?.();
      return row;
    });
  }

  /** D-264: resolves once no transfer is being stored or broadcast (each account's turn has ended). */
  idle(): Promise<void> {
    return this.mutex.idle();
  }

  /**
   * Sends the stored bytes. spec: "If the broadcast fails the record is marked failed": only a definite
   * refusal is that (D-140): the node answered an error, or no connection to it was ever made. A transport
   * failure after the request may have arrived (a reset, a time-out) leaves the outcome unknown.
   */
  private async broadcast(row: TransferRow): Promise<{ refused?: string; unsure?: true }> {
    let answer: RpcResponse;
    try {
      answer = await this.deps.upstream.send('eth_sendRawTransaction', [row.signedTx]);
    } catch (error) {
      if (error instanceof UpstreamUnavailableError && !error.mayHaveArrived) return { refused: error.message };
      return { unsure: true };
    }
    // "already known": the node holds these very bytes already (D-078's reconciliation by another instance).
    if (!answer.error || /already known/i.test(answer.error.message)) return {};
    // The keep-alive retry of a reset socket may have sent the bytes twice; a node that holds (or mined) the
    // transaction refuses the second copy ("nonce too low"), which is no refusal of this transfer.
    try {
      if (await this.deps.upstream.call('eth_getTransactionByHash', [row.txHash])) return {};
    } catch {
      return { unsure: true };
    }
    return { refused: answer.error.message };
  }

  /** One JSON-RPC batch at one sealed block: the sender's balance and nonce, and the gas the transfer needs. */
  private async readNode(address: Hex, input: TransferInput, data: Hex): Promise<NodeView> {
    const head = this.deps.sealedHead?.() ?? Number(BigInt(await this.deps.upstream.call<Hex>('eth_blockNumber')));
    const block = `0x${head.toString(16)}`;
    const [balance, nonce, estimate] = await this.deps.upstream.batch([
      { method: 'eth_getBalance', params: [address, block] },
      { method: 'eth_getTransactionCount', params: [address, block] },
      {
        method: 'eth_estimateGas',
        params: [{ from: address, to: input.to, value: `0x${input.amountWei.toString(16)}`, data }],
      },
    ]);
    if (balance!.error) throw new UpstreamRpcError(balance!.error);
    if (nonce!.error) throw new UpstreamRpcError(nonce!.error);
    return {
      balance: BigInt(balance!.result as string),
      nonce: Number(BigInt(nonce!.result as string)),
      gas: estimate!.error
        ? { error: new UpstreamRpcError(estimate!.error) }
        : { limit: BigInt(estimate!.result as string) },
    };
  }

  /**
   * Validates against the account (status, limits, balance: D-026), signs with its next nonce, and stores
   * the record with one guarded statement (guarded-insert.ts) that allocates that nonce only if nothing
   * changed since the read. When something did, it reads and signs again.
   */
  private async persistSigned(
    input: TransferInput,
    data: Hex,
    view: NodeView | undefined,
    alsoInTransaction?: (tx: Database, row: TransferRow) => Promise<void>,
  ): Promise<TransferRow> {
    const now = dateOf(this.deps.clock);
    const window: LimitWindow = { midnight: utcMidnight(now), unminedFrom: view?.nonce ?? Number.MAX_SAFE_INTEGER };
    let gas = view && 'limit' in view.gas ? view.gas.limit : intrinsicGas(data);
    for (let attempt = 1; attempt <= MAX_STORE_ATTEMPTS; attempt++) {
      const state = await this.statements.readSenderState(input.accountId, window);
      if (!state)
        throw new LedgerError(LedgerErrorCode.UNKNOWN_ACCOUNT, `"fromAccountId" ${input.accountId} does not exist`);
      checkLimits(input, state, view);
      if (view && 'error' in view.gas) throw refusedByNode(view.gas.error);
      const { account } = state;
      // Read before a KEK rotation finished (D-061): the row's old wrap can no longer be opened; read it again.
      if (!this.deps.accounts.keysReadable(account)) continue;
      const nonce = account.nextNonce;
      const signedTx = await this.deps.accounts.signTransaction(account, {
        type: 'legacy',
        chainId: CHAIN_ID,
        nonce,
        to: getAddress(input.to),
        value: input.amountWei,
        // spec: "The gas price is always 0"
        gasPrice: 0n,
        gas,
        data,
      });
      const values = {
        txRef: transferReference(now),
        kind: 'transfer' as const,
        accountId: account.id,
        fromAddress: account.address,
        toAddress: getAddress(input.to),
        amountWei: input.amountWei.toString(),
        nonce,
        txHash: keccak256(signedTx),
        signedTx,
        status: 'pending' as const,
        createdAt: now,
      };
      const guard = { amountWei: input.amountWei, window, balanceWei: view?.balance };
      const hookValues = this.hooks.storedWith?.values(values, input);
      try {
        // Work that needs statements of its own (the Idempotency-Key's response, hooks without CTEs) shares one
        // transaction with the insert; otherwise the single statement is its own transaction.
        const row =
          alsoInTransaction || !hookValues
            ? await this.deps.db.transaction(async (tx) => {
                const stored = await this.statements.insertGuarded(values, guard, hookValues, tx);
                if (stored && !hookValues) await this.hooks.stored(tx, stored, input);
                if (stored) await alsoInTransaction?.(tx, stored);
                return stored;
              })
            : await this.statements.insertGuarded(values, guard, hookValues);
        if (row) return row;
      } catch (error) {
        // D-078: a failed broadcast gave this nonce back, and the same recipient, amount and data sign to the
        // very same bytes (RFC 6979 signatures are deterministic), whose hash the failed record holds. One more
        // unit of gas limit (free at gas price 0) makes a distinct transaction.
        if (!isUniqueViolation(error, 'tx_hash')) throw error;
        gas += 1n;
      }
    }
    throw new LedgerError(
      LedgerErrorCode.UNAVAILABLE,
      `the account ${input.accountId} changed during ${MAX_STORE_ATTEMPTS} attempts to store the transfer; try again`,
    );
  }

  /**
   * Runs a node read; undefined when no connection to the node could be made (other errors propagate). D-140:
   * a node that accepts and then fails (a time-out, a reset) answers 503 before anything is stored.
   */
  private async unlessNodeDown<T>(read: () => Promise<T>): Promise<T | undefined> {
    try {
      return await read();
    } catch (error) {
      if (error instanceof UpstreamUnavailableError && !error.mayHaveArrived) return undefined;
      throw error;
    }
  }

  /** D-032: an envelope to an on-platform recipient's ML-KEM-768 key; plain UTF-8 otherwise. */
  private memoData(memo: string | undefined, recipient: AccountRow | undefined, to: Hex): Hex {
    if (!memo) return '0x';
    if (!recipient) return bytesToHex(toBytes(memo));
    return bytesToHex(memoEnvelope.seal(recipient.mlkemPublicKey, memo, to));
  }

  /**
   * spec: "the record is marked failed and is not retried"; the nonce goes back when it was the last one.
   * D-184: when it was not (another instance allocated the next one meanwhile), a filler takes the nonce.
   */
  private async markBroadcastFailed(row: TransferRow, reason: string): Promise<TransferRow> {
    const { failed, givenBack } = await this.deps.db.transaction(async (tx) => {
      const [failed] = await tx
        .update(transfers)
        .set({ status: 'failed', failReason: `broadcast failed: ${reason}` })
        .where(eq(transfers.txRef, row.txRef))
        .returning();
      const given = await tx
        .update(accounts)
        .set({ nextNonce: row.nonce })
        .where(and(eq(accounts.id, row.accountId!), eq(accounts.nextNonce, row.nonce + 1)))
        .returning({ id: accounts.id });
      await this.hooks.settled(tx, [failed!]);
      return { failed: failed!, givenBack: given.length > 0 };
    });
    if (!givenBack) await this.fillNonce(row);
    return failed;
  }

  /**
   * D-184: stores and sends a 0-value transfer from the account to itself at `failed.nonce`, so the account's
   * later transactions (signed by another instance) are not held behind the gap. It is a record like any other
   * (the confirmer settles it, D-078 sends it again after a crash); when it cannot be sent now, the confirmer
   * looks it up and sends it again at its next run (D-140).
   */
  async fillNonce(failed: Pick<TransferRow, 'accountId' | 'nonce'>): Promise<TransferRow | undefined> {
    const [account] = await this.deps.db.select().from(accounts).where(eq(accounts.id, failed.accountId!));
    if (!account || failed.nonce >= account.nextNonce) return undefined; // given back after all: no gap
    const signedTx = await this.deps.accounts.signTransaction(account, {
      type: 'legacy',
      chainId: CHAIN_ID,
      nonce: failed.nonce,
      to: account.address as Hex,
      value: 0n,
      // spec: "The gas price is always 0"; a value transfer to an account without code costs exactly 21,000 gas.
      gasPrice: 0n,
      gas: 21_000n,
    });
    const now = dateOf(this.deps.clock);
    let filler: TransferRow | undefined;
    try {
      [filler] = await this.deps.db
        .insert(transfers)
        .values({
          txRef: transferReference(now),
          kind: 'nonce-filler',
          accountId: account.id,
          fromAddress: account.address,
          toAddress: account.address,
          amountWei: '0',
          nonce: failed.nonce,
          txHash: keccak256(signedTx),
          signedTx,
          status: 'pending',
          createdAt: now,
        })
        .returning();
    } catch (error) {
      // The same bytes are stored already: this nonce was filled before.
      if (isUniqueViolation(error, 'tx_hash')) return undefined;
      throw error;
    }
    const outcome = await this.broadcast(filler!);
    if (outcome.refused !== undefined || outcome.unsure) this.deps.onUnsure?.(filler!);
    else this.deps.onAccepted?.();
    return filler;
  }
}
