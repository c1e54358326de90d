/**
 * History of chains other than the native one, from the indexer URLs configured for them ("For other
 * chains, it comes from the RPC or indexer URLs configured for them"). Three public indexer APIs are read:
 * Esplora (Bitcoin, e.g. mempool.space), Etherscan-compatible `txlist` (EVM chains, also Blockscout) and
 * TronGrid (Tron). A source that fails or times out throws; the caller lists it as `unavailable` (D-014).
 */
import { base58check } from '@scure/base';
import { sha256 } from '@noble/hashes/sha2.js';
import { getAddress } from 'viem';
import type { HistoryItem } from '@svckit/sdk/wallet';
import type { HistorySourceConfig } from '../../config.ts';

/** Asset symbols of the known EVM chains (spec rule 7); a custom network defaults to ETH. */
const EVM_ASSET: Record<string, string> = {
  '1': 'ETH',
  '42161': 'ETH',
  '10': 'ETH',
  '8453': 'ETH',
  '137': 'POL',
  '56': 'BNB',
};
const LIMIT = 100;
const b58c = base58check(sha256);

/** Fetches JSON with a time-out; any failure is an Error whose message names the cause, never a URL secret. */
async function getJson(url: string, timeoutMs: number): Promise<unknown> {
  let res: Response;
  try {
    res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs), headers: { accept: 'application/json' } });
  } catch (error) {
    const cause = (error as { cause?: { code?: string; syscall?: string } }).cause;
    if ((error as Error).name === 'TimeoutError') throw new Error(`no answer within ${timeoutMs} ms`);
    throw new Error(cause?.code ? `${cause.syscall ?? 'connect'} ${cause.code}` : (error as Error).message);
  }
  if (!res.ok) throw new Error(`HTTP ${res.status}`);
  try {
    return await res.json();
  } catch {
    throw new Error('the answer is not JSON');
  }
}

type EsploraTx = {
  txid: string;
  vin: { prevout?: { scriptpubkey_address?: string; value: number } | null }[];
  vout: { scriptpubkey_address?: string; value: number }[];
  status: { confirmed: boolean; block_height?: number; block_time?: number };
};

async function esplora(source: HistorySourceConfig, address: string, timeoutMs: number): Promise<HistoryItem[]> {
  const txs = (await getJson(`${source.url}/address/${address}/txs`, timeoutMs)) as EsploraTx[];
  if (!Array.isArray(txs)) throw new Error('expected an array of transactions');
  return txs.slice(0, LIMIT).map((tx) => {
    const out = tx.vin.some((i) => i.prevout?.scriptpubkey_address === address);
    const toMe = tx.vout.filter((o) => o.scriptpubkey_address === address);
    const others = tx.vout.filter((o) => o.scriptpubkey_address !== address);
    const value = (out ? others : toMe).reduce((sum, o) => sum + BigInt(o.value), 0n);
    const recipient = out ? others[0]?.scriptpubkey_address : address;
    return {
      id: `bitcoin:${tx.txid}`,
      chainId: 'bitcoin',
      txHash: tx.txid.toLowerCase(),
      from: tx.vin[0]?.prevout?.scriptpubkey_address ?? null,
      to: recipient ?? null,
      value: value.toString(),
      asset: 'BTC',
      direction: out ? 'out' : 'in',
      status: tx.status.confirmed ? 'confirmed' : 'pending',
      blockNumber: tx.status.confirmed ? (tx.status.block_height ?? null) : null,
      timestamp: tx.status.confirmed ? (tx.status.block_time ?? null) : null,
    } satisfies HistoryItem;
  });
}

type EtherscanTx = {
  hash: string;
  from: string;
  to: string;
  value: string;
  blockNumber: string;
  timeStamp: string;
  isError?: string;
  txreceipt_status?: string;
};

async function etherscan(source: HistorySourceConfig, address: string, timeoutMs: number): Promise<HistoryItem[]> {
  const url = new URL(source.url);
  for (const [k, v] of Object.entries({
    module: 'account',
    action: 'txlist',
    address,
    sort: 'desc',
    page: '1',
    offset: String(LIMIT),
  }))
    url.searchParams.set(k, v);
  const body = (await getJson(url.href, timeoutMs)) as { status?: string; message?: string; result?: unknown };
  if (body.status === '0' && /no transactions found/i.test(body.message ?? '')) return [];
  if (body.status !== '1' || !Array.isArray(body.result))
    throw new Error(`indexer error: ${String(body.message ?? 'unexpected answer').slice(0, 100)}`);
  return (body.result as EtherscanTx[]).map((tx) => ({
    id: `${source.chainId}:${tx.hash.toLowerCase()}`,
    chainId: source.chainId,
    txHash: tx.hash.toLowerCase(),
    from: getAddress(tx.from),
    to: tx.to ? getAddress(tx.to) : null,
    value: BigInt(tx.value).toString(),
    asset: EVM_ASSET[source.chainId] ?? 'ETH',
    direction: tx.from.toLowerCase() === address.toLowerCase() ? 'out' : 'in',
    status: tx.isError === '1' || tx.txreceipt_status === '0' ? 'failed' : 'confirmed',
    blockNumber: Number(tx.blockNumber),
    timestamp: Number(tx.timeStamp),
  }));
}

type TronTx = {
  txID: string;
  blockNumber?: number;
  block_timestamp?: number;
  ret?: { contractRet?: string }[];
  raw_data: {
    contract: {
      type: string;
      parameter: {
        value: {
          owner_address?: string;
          to_address?: string;
          contract_address?: string;
          amount?: number;
          call_value?: number;
        };
      };
    }[];
  };
};

/** TronGrid gives addresses as 41-prefixed hex; the feed uses base58check (`T…`). */
const tronBase58 = (hex?: string) =>
  hex && /^41[0-9a-fA-F]{40}$/.test(hex) ? b58c.encode(Uint8Array.from(Buffer.from(hex, 'hex'))) : null;

async function trongrid(source: HistorySourceConfig, address: string, timeoutMs: number): Promise<HistoryItem[]> {
  const body = (await getJson(`${source.url}/v1/accounts/${address}/transactions?limit=${LIMIT}`, timeoutMs)) as {
    success?: boolean;
    data?: TronTx[];
  };
  if (!body.success || !Array.isArray(body.data)) throw new Error('expected {success: true, data: [...]}');
  return body.data.map((tx) => {
    const value = tx.raw_data.contract[0]?.parameter.value ?? {};
    const from = tronBase58(value.owner_address);
    const confirmed = tx.blockNumber !== undefined;
    return {
      id: `tron:${tx.txID.toLowerCase()}`,
      chainId: 'tron',
      txHash: tx.txID.toLowerCase(),
      from,
      to: tronBase58(value.to_address ?? value.contract_address),
      value: String(BigInt(value.amount ?? value.call_value ?? 0)),
      asset: 'TRX',
      direction: from === address ? 'out' : 'in',
      status: !confirmed
        ? 'pending'
        : tx.ret?.[0]?.contractRet && tx.ret[0].contractRet !== 'SUCCESS'
          ? 'failed'
          : 'confirmed',
      blockNumber: confirmed ? tx.blockNumber! : null,
      timestamp: confirmed && tx.block_timestamp ? Math.floor(tx.block_timestamp / 1000) : null,
    } satisfies HistoryItem;
  });
}

/** Reads one configured source; throws when it cannot be reached or answers nonsense. */
export function readSource(source: HistorySourceConfig, address: string, timeoutMs: number): Promise<HistoryItem[]> {
  if (source.kind === 'esplora') return esplora(source, address, timeoutMs);
  if (source.kind === 'trongrid') return trongrid(source, address, timeoutMs);
  return etherscan(source, address, timeoutMs);
}
