/**
 * Bitcoin sends from a BIP-84 P2WPKH address, signed on the client and broadcast to an Esplora-compatible
 * REST API (rule 9; D-124: `GET /address/:a/utxo`, `GET /fee-estimates`, `POST /tx` as served by
 * Blockstream Esplora and mempool.space). The platform fee is one more output, to the collector, in the same
 * transaction (D-123), so it is paid atomically with the transfer. Change returns to the sender's address.
 */
import { applyFee, FeeError, type FeeConfig, type FeeQuote } from './fees.ts';
import {
  estimateP2wpkhVsize,
  P2WPKH_DUST,
  p2wpkhScript,
  serializeTransaction,
  signP2wpkhInputs,
  txidOf,
  type BtcInput,
  type BtcOutput,
} from './bitcoin-tx.ts';
import { bytesToHex, KeyError } from './codec.ts';
import type { ChainKey } from './keys.ts';

/** An unspent output as Esplora lists it. */
export interface EsploraUtxo {
  txid: string;
  vout: number;
  value: number;
  status?: { confirmed?: boolean };
}

/** A Bitcoin transfer. */
export interface BitcoinSendRequest {
  /** Esplora base URL (for example https://blockstream.info/api). */
  apiUrl: string;
  /** Sender key (m/84'/0'/0'/0/i). */
  key: ChainKey;
  to: string;
  /** Satoshi the recipient receives. */
  amount: bigint;
  fees: FeeConfig;
  /** Fee rate in sat/vB; default the API's 6-block estimate, at least 1. */
  satPerVbyte?: number;
  /** Spend unconfirmed outputs too (default false). */
  includeUnconfirmed?: boolean;
  fetch?: typeof fetch;
  dryRun?: boolean;
}

/** The outcome of {@link sendBitcoin}. */
export interface BitcoinSendResult {
  quote: FeeQuote;
  txid: string;
  hex: string;
  /** Network fee paid to miners, satoshi. */
  networkFee: bigint;
  vsize: number;
  broadcast: boolean;
}

/** Selects coins, adds the fee output, signs every input and broadcasts. */
export async function sendBitcoin(request: BitcoinSendRequest): Promise<BitcoinSendResult> {
  if (request.key.family !== 'bitcoin')
    throw new KeyError(`sendBitcoin expected a BIP-84 key, got a ${request.key.family} key`);
  const doFetch = request.fetch ?? fetch;
  const api = request.apiUrl.replace(/\/$/, '');
  const quote = applyFee(request.fees, 'bitcoin', request.amount);
  if (request.amount < P2WPKH_DUST)
    throw new KeyError(`amount ${request.amount} sat is below the P2WPKH dust limit ${P2WPKH_DUST} sat`);
  if (quote.fee > 0n && quote.fee < P2WPKH_DUST) {
    throw new FeeError(
      `the platform fee ${quote.fee} sat is below the dust limit ${P2WPKH_DUST} sat and cannot be paid as an output: send at least ${(P2WPKH_DUST * 10_000n) / BigInt(quote.feeBps)} sat`,
    );
  }
  const outputs: BtcOutput[] = [{ script: p2wpkhScript(request.to), value: quote.amount }];
  if (quote.fee > 0n) outputs.push({ script: p2wpkhScript(quote.collector!), value: quote.fee });

  const utxos = (await json<EsploraUtxo[]>(doFetch, `${api}/address/${request.key.address}/utxo`)).filter(
    (u) => request.includeUnconfirmed || u.status?.confirmed !== false,
  );
  const rate = BigInt(Math.max(1, Math.ceil(request.satPerVbyte ?? (await estimateRate(doFetch, api)))));
  const selected: BtcInput[] = [];
  let inValue = 0n;
  let networkFee = 0n;
  let change = 0n;
  for (const utxo of [...utxos].sort((a, b) => b.value - a.value)) {
    selected.push({ txid: utxo.txid, vout: utxo.vout, value: BigInt(utxo.value) });
    inValue += BigInt(utxo.value);
    const withChange = rate * BigInt(estimateP2wpkhVsize(selected.length, outputs.length + 1));
    const withoutChange = rate * BigInt(estimateP2wpkhVsize(selected.length, outputs.length));
    if (inValue >= quote.total + withChange + P2WPKH_DUST) {
      networkFee = withChange;
      change = inValue - quote.total - withChange;
      break;
    }
    if (inValue >= quote.total + withoutChange) {
      networkFee = inValue - quote.total; // the remainder is below dust: it goes to the miners
      break;
    }
  }
  if (networkFee === 0n)
    throw new KeyError(
      `${request.key.address} holds ${inValue} sat spendable, not enough for ${quote.total} sat plus the network fee: nothing signed`,
    );
  const finalOutputs =
    change > 0n ? [...outputs, { script: p2wpkhScript(request.key.address), value: change }] : outputs;
  const signed = signP2wpkhInputs(
    { version: 2, inputs: selected, outputs: finalOutputs, locktime: 0 },
    request.key.privateKey,
  );
  const hex = bytesToHex(serializeTransaction(signed));
  const txid = txidOf(signed);
  if (!request.dryRun) {
    const response = await doFetch(`${api}/tx`, {
      method: 'POST',
      body: hex,
      headers: { 'content-type': 'text/plain' },
    });
    const answer = (await response.text()).trim();
    if (!response.ok) throw new KeyError(`broadcast refused (${response.status}): ${answer}`);
    if (answer !== txid) throw new KeyError(`the API answered txid ${answer}, expected ${txid}`);
  }
  return {
    quote,
    txid,
    hex,
    networkFee,
    vsize: estimateP2wpkhVsize(selected.length, finalOutputs.length),
    broadcast: !request.dryRun,
  };
}

async function estimateRate(doFetch: typeof fetch, api: string): Promise<number> {
  const estimates = await json<Record<string, number>>(doFetch, `${api}/fee-estimates`);
  return estimates['6'] ?? estimates['3'] ?? estimates['1'] ?? 1;
}

async function json<T>(doFetch: typeof fetch, url: string): Promise<T> {
  const response = await doFetch(url);
  if (!response.ok) throw new KeyError(`GET ${url} answered ${response.status}`);
  return (await response.json()) as T;
}
