/**
 * The explorer's views (spec: "read-only GET endpoints returning JSON, wrapping JSON-RPC and adding
 * computed views (balance formatting, validator metadata, consensus parameters)"). Every chain read goes
 * through the gateway's dispatcher as a JSON-RPC batch.
 */
import type { Hex } from 'viem';
import type {
  AddressBalance,
  Block,
  ChainStats,
  ExplorerTransaction,
  GovernanceView,
  TransactionSummary,
  ValidatorList,
} from '@svckit/sdk/explorer';
import type { ChainRuntime } from '../../node/runtime.ts';
import type { Clock } from '@svckit/sdk/clock';
import { ErrorCode, RestError } from '../http/errors.ts';
import type { RpcDispatcher } from '../chain/service.ts';
import { call, ChainReader } from './chain-reader.ts';
import {
  AVG_BLOCK_WINDOW,
  formatAvgBlockTime,
  formatBalance,
  hexToInt,
  toExplorerBlock,
  toExplorerTransaction,
  toQuantity,
} from './format.ts';
import type { BlockRef } from './params.ts';
import { TtlCache } from './ttl-cache.ts';
import { metadataUnknown, qbftParameters, SAMPLE_BLOCKS, validatorEntries } from './validators.ts';

/** What the explorer reads: the gateway's dispatcher (JSON-RPC, batched), the QBFT metadata and the clock. */
export type ExplorerDeps = { dispatcher: RpcDispatcher; chain: ChainRuntime; clock: Clock };

/** spec: "Explorer recent lists | 10 blocks; 10 transactions | /blocks and /txns". */
export const RECENT_ITEMS = 10;

/** spec: "Transaction list cache and scan | cached 20 seconds; last 200 blocks scanned | /txns". */
export const TXNS_CACHE_MS = 20_000;
/** See TXNS_CACHE_MS. */
export const TXNS_SCAN_BLOCKS = 200;

/** Computes the eight explorer views. */
export class ExplorerService {
  /** The chain reader (exposed so the plugin can feed it sealed-block heads). */
  readonly reader: ChainReader;
  private readonly txns: TtlCache<TransactionSummary[]>;

  /** Creates the service over the stack's dispatcher, chain metadata and clock. */
  constructor(private readonly deps: ExplorerDeps) {
    this.reader = new ChainReader(deps.dispatcher);
    this.txns = new TtlCache(deps.clock, TXNS_CACHE_MS);
  }

  /** spec: "blockNumber (integer), avgBlockTime (string, decimal seconds, averaged over the last 20 blocks)". */
  async stats(): Promise<ChainStats> {
    const { head, blocks } = await this.reader.window(AVG_BLOCK_WINDOW + 1);
    // D-041: over fewer blocks near genesis; "0.00" while only one block exists.
    const span = blocks.length - 1;
    const avgBlockTime = formatAvgBlockTime(hexToInt(blocks[0]!.timestamp), hexToInt(blocks[span]!.timestamp), span);
    return { blockNumber: head, avgBlockTime };
  }

  /** spec: "array of the 10 most recent blocks, headers only (transactions listed as hashes)"; newest first. */
  async recentBlocks(): Promise<Block[]> {
    const { blocks } = await this.reader.window(RECENT_ITEMS);
    return blocks.map(toExplorerBlock);
  }

  /** spec: "one block with the list of its transaction hashes"; 404 when the node has no such block. */
  async block(ref: BlockRef): Promise<Block> {
    const label = ref.kind === 'hash' ? ref.hash : ref.number.toString();
    // No chain reaches 2^53 blocks: such a number is unknown without asking the node.
    if (ref.kind === 'number' && ref.number > BigInt(Number.MAX_SAFE_INTEGER))
      throw new RestError(ErrorCode.NOT_FOUND, `block ${label} not found`);
    const [block] = await this.reader.batch([
      ref.kind === 'hash'
        ? call('eth_getBlockByHash', ref.hash, false)
        : call('eth_getBlockByNumber', toQuantity(ref.number), false),
    ]);
    if (!block?.number || !block.hash) throw new RestError(ErrorCode.NOT_FOUND, `block ${label} not found`);
    return toExplorerBlock(block);
  }

  /**
   * spec: "array of the 10 most recent transactions, each {hash, blockNumber, timestamp}; cached for 20
   * seconds; scans the last 200 blocks". Newest first: by block, then by position in the block.
   */
  recentTransactions(): Promise<TransactionSummary[]> {
    return this.txns.get(async () => {
      const { blocks } = await this.reader.window(TXNS_SCAN_BLOCKS);
      const recent: TransactionSummary[] = [];
      for (const block of blocks) {
        const blockNumber = hexToInt(block.number);
        const timestamp = hexToInt(block.timestamp);
        const hashes = (block.transactions as string[]).map((h) => h.toLowerCase()).reverse();
        for (const hash of hashes) {
          if (recent.length === RECENT_ITEMS) return recent;
          recent.push({ hash, blockNumber, timestamp });
        }
      }
      return recent;
    });
  }

  /** spec: "Explorer transaction (with receipt data)"; 404 when the node knows no such transaction. */
  async transaction(hash: Hex): Promise<ExplorerTransaction> {
    const [tx, receipt] = await this.reader.batch([
      call('eth_getTransactionByHash', hash),
      call('eth_getTransactionReceipt', hash),
    ]);
    if (!tx) throw new RestError(ErrorCode.NOT_FOUND, `transaction ${hash} not found`);
    return toExplorerTransaction(tx, receipt);
  }

  /**
   * spec: "address (string), balance (string, decimal with four decimal places, in the native unit),
   * blockNumber (integer)". The balance is read at the stated block, so it equals eth_getBalance there.
   */
  async balance(address: Hex): Promise<AddressBalance> {
    const blockNumber = await this.reader.head();
    const [wei] = await this.reader.batch([call('eth_getBalance', address.toLowerCase(), toQuantity(blockNumber))]);
    return { address, balance: formatBalance(BigInt(wei)), blockNumber };
  }

  /** spec: "validators (array of Validator), totalValidators (integer), faultTolerance (integer), consensusThreshold (integer), sampleBlocks (integer ...; 50)". */
  async validators(): Promise<ValidatorList> {
    const { validators, n } = await this.validatorView();
    const { f, threshold } = qbftParameters(n);
    return {
      validators,
      totalValidators: n,
      faultTolerance: f,
      consensusThreshold: threshold,
      sampleBlocks: SAMPLE_BLOCKS,
    };
  }

  /** spec: "validators (array of Validator) and qbft, an object with n ..., f ..., threshold ..., blockPeriodSeconds (integer; 2), requestTimeoutSeconds (integer; 10)". */
  async governance(): Promise<GovernanceView> {
    const { validators, n } = await this.validatorView();
    return { validators, qbft: qbftParameters(n) };
  }

  /** The Validator entries and n, the size of the current set (qbft_getValidatorsByBlockNumber at the head). */
  private async validatorView() {
    if (this.deps.chain.mode === 'external') {
      throw metadataUnknown(
        'the chain is external (CHAIN_RPC_URL) and this stack holds no names or post-quantum addresses for its validators',
      );
    }
    const { head, blocks } = await this.reader.window(SAMPLE_BLOCKS);
    const [set] = await this.reader.batch([call('qbft_getValidatorsByBlockNumber', toQuantity(head))]);
    if (!set) throw new Error(`qbft_getValidatorsByBlockNumber returned null for the head ${head}`);
    return {
      validators: validatorEntries(
        this.deps.chain.validators,
        set,
        blocks.map((b) => b.miner),
      ),
      n: set.length,
    };
  }
}
