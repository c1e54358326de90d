/**
 * The chain side of the stack: the node (embedded Anvil, or CHAIN_RPC_URL), the emulated QBFT network on
 * top of the embedded node (validators, proposer rotation, votes), and chain permissioning (D-050).
 * With SVC_SHARED_CHAIN (D-183) the node at CHAIN_RPC_URL is driven like the embedded one, by whichever of
 * the instances sharing it holds the leader lease (leader-lease.ts); the others follow its head.
 */
import path from 'node:path';
import { toHex } from 'viem';
import type { HDAccount } from 'viem/accounts';
import type { Config } from '../config.ts';
import type { Keyring } from '../ledger/keyring.ts';
import type { Database } from '../storage/database.ts';
import { networkSeed } from '../storage/settings.ts';
import { startAnvil, type AnvilNode } from './anvil.ts';
import { FUNDING_BALANCE_WEI, fundingAccount } from './genesis.ts';
import { BlockProducer } from './block-producer.ts';
import { FinalBlockCache } from './final-blocks.ts';
import { LeaderLease } from './leader-lease.ts';
import { ChainPermissions } from './permissions.ts';
import { QbftConsensus } from './qbft/consensus.ts';
import { deriveValidators, observerNodeId, type ValidatorIdentity } from './qbft/validators.ts';
import { Upstream } from './upstream.ts';

/** The running chain parts shared by the gateway, the explorer and the admin console. */
export type ChainRuntime = {
  /** `shared`: CHAIN_RPC_URL driven like the embedded node by the leader lease holder (D-183). */
  mode: 'embedded' | 'external' | 'shared';
  upstream: Upstream;
  consensus: QbftConsensus;
  validators: ValidatorIdentity[];
  observerNodeId: string;
  /** Embedded and shared: seals blocks with the QBFT proposer as miner (shared: while leader, D-183). */
  producer: BlockProducer | undefined;
  /** Shared only: the block producer's leader lease (D-183). */
  lease: LeaderLease | undefined;
  /** Embedded only: who may send transactions (D-050). */
  permissions: ChainPermissions | undefined;
  /** Embedded only: sealed blocks and the head, served by the gateway without asking the node. */
  blockCache: FinalBlockCache | undefined;
  /** Embedded only: the server-held account that funds others (D-151); its key never leaves the server. */
  fundingAccount: HDAccount | undefined;
  clientName: string;
  stop(): Promise<void>;
};

/** Starts (or connects to) the chain. `persistState` keeps Anvil's state in the data directory across restarts. */
export async function startChain(
  config: Pick<
    Config,
    | 'chainRpcUrl'
    | 'chainTimeoutMs'
    | 'blockTimeSeconds'
    | 'validatorCount'
    | 'dataDir'
    | 'sharedChain'
    | 'leaderLeaseMs'
  >,
  db: Database,
  keyring: Keyring,
  options: { persistState: boolean },
): Promise<ChainRuntime> {
  const seed = await networkSeed(db, keyring);
  const validators = deriveValidators(seed, config.validatorCount);
  const consensus = await QbftConsensus.open(
    db,
    validators.map((v) => v.address),
  );
  let anvil: AnvilNode | undefined;
  if (!config.chainRpcUrl) {
    anvil = await startAnvil(options.persistState ? { stateFile: path.join(config.dataDir, 'anvil-state.json') } : {});
  }
  const upstream = new Upstream(config.chainRpcUrl ?? anvil!.url, { timeoutMs: config.chainTimeoutMs });
  const nodeVersion = await upstream.call<string>('web3_clientVersion').catch(() => 'unknown');
  const clientName = `svckit-observer/0.1.0/${nodeVersion}`;
  const shared = Boolean(config.chainRpcUrl && config.sharedChain);
  if (!anvil && !shared) {
    return {
      mode: 'external',
      lease: undefined,
      upstream,
      consensus,
      validators,
      observerNodeId: observerNodeId(seed),
      producer: undefined,
      permissions: undefined,
      blockCache: undefined,
      fundingAccount: undefined,
      clientName,
      stop: async () => undefined,
    };
  }
  const funder = await fundingAccount(db, keyring);
  const [headHex, balanceHex, sentHex] = await upstream.batchResults<string>([
    { method: 'eth_blockNumber', params: [] },
    { method: 'eth_getBalance', params: [funder.address, 'latest'] },
    { method: 'eth_getTransactionCount', params: [funder.address, 'latest'] },
  ]);
  const head = Number(BigInt(headHex!));
  // D-151: a funding account that never held or sent anything is credited: a fresh chain, or a chain
  // reloaded from a data directory an older svckit funded from Anvil's published accounts. One that was
  // credited before keeps what it has (Anvil reloads it with --state).
  if (BigInt(balanceHex!) === 0n && BigInt(sentHex!) === 0n) {
    await upstream.call('anvil_setBalance', [funder.address, toHex(FUNDING_BALANCE_WEI)]);
  }
  // D-050, D-151: only the validators are always allowed; the funding account sends to the node directly.
  const permissions = new ChainPermissions(db, consensus.allValidators());
  // D-183: on a shared node only the lease holder seals; one instance alone simply always holds the lease.
  const lease = shared ? new LeaderLease(db, config.leaderLeaseMs) : undefined;
  lease?.on('change', (held) =>
    console.warn(
      held
        ? `svckit: leader lease taken (holder ${lease.holder}); this instance seals the blocks`
        : 'svckit: leader lease lost; this instance follows the head',
    ),
  );
  await lease?.start();
  const producer = new BlockProducer(upstream, consensus, config.blockTimeSeconds, lease);
  const blockCache = new FinalBlockCache();
  producer.on('sealed', (block) => blockCache.noteHead(block.number));
  blockCache.noteHead(head);
  producer.start();
  return {
    mode: shared ? 'shared' : 'embedded',
    lease,
    upstream,
    consensus,
    validators,
    observerNodeId: observerNodeId(seed),
    producer,
    permissions,
    blockCache,
    fundingAccount: funder,
    clientName,
    stop: async () => {
      await producer.stop();
      await lease?.stop();
      await anvil?.stop();
    },
  };
}
