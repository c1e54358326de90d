/**
 * The ledger side of the stack: credentials, accounts with keys at rest, the transfer engine and the
 * confirmer that settles pending transfers as blocks arrive (and reconciles after a crash, D-078).
 */
import type { ChainRuntime } from '../chain/runtime.ts';
import type { Clock } from '../clock.ts';
import type { Database } from '../storage/database.ts';
import { AccountStore } from './accounts.ts';
import { CredentialStore } from './credentials.ts';
import { Keyring } from './keyring.ts';
import { TransferConfirmer } from './transfers/confirmer.ts';
import { TransferEngine, type TransferRow } from './transfers/engine.ts';

/** The running ledger parts. */
export type LedgerRuntime = {
  credentials: CredentialStore;
  accounts: AccountStore;
  keyring: Keyring;
  engine: TransferEngine;
  confirmer: TransferConfirmer;
  stop(): Promise<void>;
};

/** Starts the ledger on `db` and `chain`; `onSettled` hears transfers leaving pending. */
export async function startLedger(
  db: Database,
  chain: ChainRuntime,
  clock: Clock,
  options: { dataDir: string | null; kek?: string | undefined; onSettled?: (row: TransferRow) => Promise<void> | void },
): Promise<LedgerRuntime> {
  const now = () => new Date(clock.now());
  const keyring = Keyring.open({ dataDir: options.dataDir, ...(options.kek ? { envKek: options.kek } : {}) });
  const accounts = new AccountStore(db, keyring);
  const engine = new TransferEngine(db, accounts, chain.upstream, now, () => chain.producer?.onTransaction());
  const confirmer = new TransferConfirmer(db, chain.upstream, options.onSettled);
  const { rebroadcast } = await confirmer.reconcile();
  // With instant mining (SVC_BLOCK_TIME=0) a block is sealed only when a transaction is accepted: the
  // re-sent ones must seal one too, or they wait in the pool for the next transfer.
  if (rebroadcast > 0) chain.producer?.onTransaction();
  const onSealed = () => void confirmer.poke().catch(() => undefined);
  chain.producer?.on('sealed', onSealed);
  // An external chain seals blocks without telling us; the period poll also covers missed events.
  const poll = setInterval(onSealed, 1000);
  onSealed();
  return {
    credentials: new CredentialStore(db, now),
    accounts,
    keyring,
    engine,
    confirmer,
    stop: async () => {
      clearInterval(poll);
      chain.producer?.off('sealed', onSealed);
      await confirmer.idle();
    },
  };
}
