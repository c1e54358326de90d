/**
 * The ledger side of the stack: credentials, accounts with keys at rest, the transfer engine and the
 * confirmer that settles pending transfers as blocks arrive (and reconciles after a crash, D-078).
 */
import type { ChainRuntime } from '../node/runtime.ts';
import type { Clock } from '@svckit/sdk/clock';
import type { Database } from '../storage/database.ts';
import { AccountStore } from './accounts.ts';
import { CredentialStore } from './credentials.ts';
import type { Keyring } from './keyring.ts';
import { TransferConfirmer } from './transfers/confirmer.ts';
import { TransferEngine } from './transfers/engine.ts';
import type { FxTable } from './payments/fx.ts';
import { PaymentLifecycle, type PaymentSettings } from './payments/lifecycle.ts';
import { PaymentService } from './payments/service.ts';

/** The running ledger parts. */
export type LedgerRuntime = {
  credentials: CredentialStore;
  accounts: AccountStore;
  keyring: Keyring;
  engine: TransferEngine;
  confirmer: TransferConfirmer;
  /** pacs.008 payments and returns; transfers' payments come from the engine's hooks (D-049). */
  payments: PaymentService;
  stop(): Promise<void>;
};

/** Payment settings (D-049, D-053) and who hears that events were committed (the webhook dispatcher). */
export type LedgerPaymentOptions = PaymentSettings & { fx: FxTable; emitted: () => void };

/** Starts the ledger on `db` and `chain`; payment events go to the outbox in the transfers' own transactions. */
export async function startLedger(
  db: Database,
  chain: ChainRuntime,
  clock: Clock,
  options: {
    /** The stack's key-encryption keys (account keys; webhook secrets too, D-130). */
    keyring: Keyring;
    /** Other KEK-sealed data the rotation re-seals in its transaction (the webhook secrets). */
    rewrapWithKek?: (tx: Database) => Promise<unknown>;
    payments: LedgerPaymentOptions;
  },
): Promise<LedgerRuntime> {
  const { keyring } = options;
  const accounts = new AccountStore(db, keyring, options.rewrapWithKek);
  const lifecycle = new PaymentLifecycle(clock, {
    platformBic: options.payments.platformBic,
    nativeCcy: options.payments.nativeCcy,
  });
  const engine = new TransferEngine({
    db,
    accounts,
    upstream: chain.upstream,
    clock,
    hooks: lifecycle,
    onAccepted: () => chain.producer?.onTransaction(),
    onUnsure: (row) => confirmer.recheck(row.txRef),
    sealedHead: () => chain.blockCache?.latest,
  });
  const confirmer = new TransferConfirmer(db, chain.upstream, lifecycle, () => chain.producer?.onTransaction());
  const payments = new PaymentService({
    db,
    lifecycle,
    engine,
    confirmer,
    accounts,
    fx: options.payments.fx,
    emitted: options.payments.emitted,
  });
  const { rebroadcast } = await confirmer.reconcile();
  // With instant mining (SVC_BLOCK_TIME=0) a block is sealed only when a transaction is accepted: the
  // re-sent ones must seal one too, or they wait in the pool for the next transfer.
  if (rebroadcast > 0) chain.producer?.onTransaction();
  const onSealed = () =>
    void confirmer
      .poke()
      .then(() => options.payments.emitted())
      .catch(() => undefined);
  chain.producer?.on('sealed', onSealed);
  // An external chain seals blocks without telling us; the period poll also covers missed events.
  const poll = setInterval(onSealed, 1000);
  onSealed();
  payments.start();
  return {
    credentials: new CredentialStore(db, clock),
    accounts,
    keyring,
    engine,
    confirmer,
    payments,
    stop: async () => {
      clearInterval(poll);
      await payments.stop();
      chain.producer?.off('sealed', onSealed);
      await confirmer.idle();
    },
  };
}
