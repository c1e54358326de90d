/**
 * Methods the observer answers itself: the spec's fixed values (gas price 0, network id 1111111), the
 * net group Anvil lacks (DESIGN.md: "Anvil lacks net_peerCount and every qbft_* method"), the emulated
 * QBFT methods, and the read-only TXPOOL and ADMIN methods of D-013.
 */
import { keccak256, toHex, type Hex } from 'viem';
import type { QbftConsensus } from '../../node/qbft/consensus.ts';
import type { ValidatorIdentity } from '../../node/qbft/validators.ts';
import type { FinalBlockCache } from '../../node/final-blocks.ts';
import type { Upstream } from '../../node/upstream.ts';

/** What the local methods read. */
export type LocalContext = {
  upstream: Upstream;
  /** Embedded chain only: sealed blocks and the head (see FinalBlockCache). */
  blockCache?: FinalBlockCache | undefined;
  consensus: QbftConsensus;
  validators: ValidatorIdentity[];
  observerNodeId: string;
  /** Host and port shown in enode URLs (the emulated p2p listener). */
  p2pHost: string;
  clientName: string;
};

type LocalMethod = (params: unknown[], ctx: LocalContext) => Promise<unknown>;

/** The head: known without a round trip on the embedded chain (the producer reports each sealed block). */
const latestNumber = async (ctx: LocalContext) =>
  ctx.blockCache?.latest ?? Number(BigInt(await ctx.upstream.call<string>('eth_blockNumber')));

/** Resolves QUANTITY or TAG to a block number, or null when the block does not exist yet. */
async function resolveBlock(tag: string, ctx: LocalContext): Promise<number | null> {
  const latest = await latestNumber(ctx);
  if (tag === 'latest' || tag === 'pending') return latest;
  if (tag === 'earliest') return 0;
  const number = Number(BigInt(tag));
  return number <= latest ? number : null;
}

const enode = (id: string, host: string) => `enode://${id}@${host}:30303`;

/** A pooled transaction as txpool_content answers it. */
type PooledTx = {
  hash: Hex;
  from: Hex;
  to: Hex | null;
  gas: Hex;
  gasPrice?: Hex;
  value: Hex;
  nonce: Hex;
  [member: string]: unknown;
};
type ByNonce = Record<string, Record<string, PooledTx>>;

/** The node's pool (txpool_content): ready transactions under `pending`, nonce-gapped ones under `queued`. */
const poolContent = (ctx: LocalContext) => ctx.upstream.call<{ pending?: ByNonce; queued?: ByNonce }>('txpool_content');

/** Besu's txpool_besuPendingTransactions field filter: one operator per field (chain.openrpc.json). */
type FieldFilter = Partial<Record<'eq' | 'gt' | 'lt' | 'action', string>>;

/** Whether `tx` passes every field filter, as Besu's PendingTransactionFilter reads them. */
function passes(tx: PooledTx, fields: Record<string, FieldFilter>): boolean {
  return Object.entries(fields).every(([field, filter]) => {
    const [operator, wanted] = Object.entries(filter)[0]!;
    if (field === 'to' && operator === 'action') return tx.to === null;
    if (field === 'from' || field === 'to') {
      const actual = field === 'from' ? tx.from : tx.to;
      return actual !== null && actual.toLowerCase() === wanted!.toLowerCase();
    }
    const actual = BigInt((field === 'gasPrice' ? (tx.gasPrice ?? tx.maxFeePerGas) : tx[field]) as string);
    const value = BigInt(wanted!);
    return operator === 'eq' ? actual === value : operator === 'gt' ? actual > value : actual < value;
  });
}

/** A block by number or hash as the node answers it: its uncles, or null for an unknown block. */
async function blockUncles(method: 'eth_getBlockByNumber' | 'eth_getBlockByHash', id: string, ctx: LocalContext) {
  const block = await ctx.upstream
    .call<{ uncles: Hex[] } | null>(method, [id, false])
    // Anvil refuses a block number past its head (-32602); Besu answers null for an unknown block (D-258).
    .catch((error: { code?: number }) =>
      error.code === -32602 || error.code === -32001 ? null : Promise.reject(error),
    );
  return block ? toHex(block.uncles.length) : null;
}

/** The methods the gateway serves without relaying, by name. */
export const localMethods: Record<string, LocalMethod> = {
  // spec: "eth_gasPrice | none | QUANTITY, always 0"
  eth_gasPrice: async () => '0x0',
  // spec: "net_version | none | string, the network ID (1111111)"
  net_version: async () => '1111111',
  net_listening: async () => true,
  // D-253: Besu's NET group; the enode admin_nodeInfo answers too.
  net_enode: async (_p, ctx) => enode(ctx.observerNodeId, ctx.p2pHost),
  // D-253: execution-apis and EIP-1474 methods whose answer the observer fixes.
  eth_maxPriorityFeePerGas: async () => '0x0',
  eth_accounts: async () => [],
  eth_mining: async () => true,
  eth_hashrate: async () => '0x0',
  // Besu: the highest eth capability, eth/68 (admin_peers lists it).
  eth_protocolVersion: async () => '0x44',
  // Besu on a QBFT node answered its node key's address: keccak-256 of the public key, its last 20 bytes.
  eth_coinbase: async (_p, ctx) => `0x${keccak256(`0x${ctx.observerNodeId}`).slice(-40)}`,
  // D-258: QBFT blocks have no uncles.
  eth_getUncleCountByBlockNumber: async ([id], ctx) => blockUncles('eth_getBlockByNumber', id as string, ctx),
  eth_getUncleCountByBlockHash: async ([id], ctx) => blockUncles('eth_getBlockByHash', id as string, ctx),
  eth_getUncleByBlockNumberAndIndex: async () => null,
  eth_getUncleByBlockHashAndIndex: async () => null,
  // The observer is peered with every validator of the current set.
  net_peerCount: async (_p, ctx) => toHex(ctx.consensus.validatorsAt((await latestNumber(ctx)) + 1).length),
  web3_clientVersion: async (_p, ctx) => ctx.clientName,
  // Besu: an unknown block gives null (D-074).
  qbft_getValidatorsByBlockNumber: async ([tag], ctx) => {
    const number = await resolveBlock(tag as string, ctx);
    return number === null ? null : ctx.consensus.validatorsAt(number).map((a) => a.toLowerCase());
  },
  qbft_getValidatorsByBlockHash: async ([hash], ctx) => {
    const block = await ctx.upstream.call<{ number: Hex } | null>('eth_getBlockByHash', [hash, false]);
    return block ? ctx.consensus.validatorsAt(Number(BigInt(block.number))).map((a) => a.toLowerCase()) : null;
  },
  qbft_getPendingVotes: async (_p, ctx) =>
    Object.fromEntries((await ctx.consensus.proposals()).map((p) => [p.target.toLowerCase(), p.add])),
  txpool_besuStatistics: async (_p, ctx) => {
    const status = await ctx.upstream.call<{ pending: Hex; queued: Hex }>('txpool_status');
    return { maxSize: 4096, localCount: Number(BigInt(status.pending) + BigInt(status.queued)), remoteCount: 0 };
  },
  txpool_besuTransactions: async (_p, ctx) => {
    type ByNonce = Record<string, Record<string, { hash: Hex }>>;
    const content = await ctx.upstream.call<{ pending?: ByNonce; queued?: ByNonce }>('txpool_content');
    const now = new Date().toISOString();
    // Besu's pool lists every transaction it holds, nonce-gapped ones too (txpool_besuStatistics counts both).
    return [...Object.values(content.pending ?? {}), ...Object.values(content.queued ?? {})].flatMap((byNonce) =>
      Object.values(byNonce).map((tx) => ({ hash: tx.hash, isReceivedFromLocalSource: true, addedToPoolAt: now })),
    );
  },
  // D-253: Besu's filtered view of the pool; Anvil serves no txpool_besu* method.
  txpool_besuPendingTransactions: async ([limit, fields], ctx) => {
    const content = await poolContent(ctx);
    const all = [...Object.values(content.pending ?? {}), ...Object.values(content.queued ?? {})].flatMap((byNonce) =>
      Object.values(byNonce),
    );
    const matching = all.filter((tx) => passes(tx, (fields ?? {}) as Record<string, FieldFilter>));
    return matching.slice(0, limit === undefined ? matching.length : (limit as number));
  },
  // D-253: Besu's (and Geth's) txpool_contentFrom, from the node's txpool_content.
  txpool_contentFrom: async ([address], ctx) => {
    const content = await poolContent(ctx);
    const of = (byAddress: ByNonce | undefined) =>
      Object.entries(byAddress ?? {}).find(
        ([sender]) => sender.toLowerCase() === (address as string).toLowerCase(),
      )?.[1] ?? {};
    return { pending: of(content.pending), queued: of(content.queued) };
  },
  admin_nodeInfo: async (_p, ctx) => {
    const [genesis, head] = await ctx.upstream.batchResults<{ hash: Hex; number: Hex }>([
      { method: 'eth_getBlockByNumber', params: ['earliest', false] },
      { method: 'eth_getBlockByNumber', params: ['latest', false] },
    ]);
    return {
      enode: enode(ctx.observerNodeId, ctx.p2pHost),
      listenAddr: `${ctx.p2pHost}:30303`,
      name: ctx.clientName,
      id: ctx.observerNodeId,
      ports: { discovery: 30303, listener: 30303 },
      protocols: {
        eth: {
          config: { chainId: 1111111, zeroBaseFee: true, qbft: { blockperiodseconds: 2, requesttimeoutseconds: 10 } },
          difficulty: Number(BigInt(head!.number)) + 1,
          genesis: genesis!.hash,
          head: head!.hash,
          network: 1111111,
        },
      },
    };
  },
  admin_peers: async (_p, ctx) => {
    const head = await ctx.upstream.call<{ hash: Hex; number: Hex }>('eth_getBlockByNumber', ['latest', false]);
    return ctx.validators.map((v, i) => ({
      version: '0x5',
      name: ctx.clientName,
      caps: ['eth/68', 'istanbul/100'],
      network: { localAddress: `${ctx.p2pHost}:30303`, remoteAddress: `${ctx.p2pHost}:${30304 + i}` },
      port: toHex(30304 + i),
      id: `0x${v.nodeId}`,
      protocols: { eth: { difficulty: toHex(BigInt(head.number) + 1n), head: head.hash, version: 68 } },
      enode: enode(v.nodeId, ctx.p2pHost).replace(':30303', `:${30304 + i}`),
    }));
  },
};
