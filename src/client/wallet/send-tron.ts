/**
 * TRX sends, built and signed on the client and broadcast to a TronGrid-compatible HTTP API (rule 9;
 * D-124: `POST /wallet/getnowblock` for the reference block, `POST /wallet/broadcasthex`). The platform
 * fee is a second transfer to the collector, signed together with the first and broadcast after it (D-123).
 */
import { applyFee, type FeeConfig, type FeeQuote } from './fees.ts';
import { KeyError, tronAddressBytes } from './codec.ts';
import type { ChainKey } from './keys.ts';
import { encodeTransferRaw, signTronRaw, type SignedTronTransaction } from './tron-tx.ts';

/** A TRX transfer. */
export interface TronSendRequest {
  /** TronGrid-compatible base URL (for example https://api.trongrid.io). */
  apiUrl: string;
  /** Sender key (m/44'/195'/0'/0/i). */
  key: ChainKey;
  to: string;
  /** Sun the recipient receives. */
  amount: bigint;
  fees: FeeConfig;
  /** Extra headers (for example TRON-PRO-API-KEY). */
  headers?: Record<string, string>;
  fetch?: typeof fetch;
  dryRun?: boolean;
  /** Validity after the head block, ms (default 60,000). */
  expirationMs?: number;
}

/** The outcome of {@link sendTron}. */
export interface TronSendResult {
  quote: FeeQuote;
  transactions: Array<SignedTronTransaction & { role: 'transfer' | 'fee' }>;
  broadcast: string[];
}

/** Signs the transfer and its fee against the head block and broadcasts them (transfer first). */
export async function sendTron(request: TronSendRequest): Promise<TronSendResult> {
  if (request.key.family !== 'tron')
    throw new KeyError(`sendTron expected a Tron key, got a ${request.key.family} key`);
  tronAddressBytes(request.to);
  const doFetch = request.fetch ?? fetch;
  const api = request.apiUrl.replace(/\/$/, '');
  const post = async <T>(path: string, body: unknown): Promise<T> => {
    const response = await doFetch(`${api}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...request.headers },
      body: JSON.stringify(body),
    });
    if (!response.ok) throw new KeyError(`POST ${path} answered ${response.status}`);
    return (await response.json()) as T;
  };
  const quote = applyFee(request.fees, 'tron', request.amount);
  const head = await post<{ blockID: string; block_header: { raw_data: { number: number; timestamp: number } } }>(
    '/wallet/getnowblock',
    {},
  );
  const refBlock = { number: BigInt(head.block_header.raw_data.number), blockId: head.blockID };
  const headTime = BigInt(head.block_header.raw_data.timestamp);
  const legs: Array<{ role: 'transfer' | 'fee'; to: string; amount: bigint }> = [
    { role: 'transfer', to: request.to, amount: quote.amount },
  ];
  if (quote.fee > 0n && quote.collector) legs.push({ role: 'fee', to: quote.collector, amount: quote.fee });
  const transactions = legs.map((leg, i) => {
    const raw = encodeTransferRaw({
      from: request.key.address,
      to: leg.to,
      amount: leg.amount,
      refBlock,
      // Distinct timestamps keep the two txIDs distinct even for equal amounts.
      timestamp: headTime + BigInt(i),
      expiration: headTime + BigInt(request.expirationMs ?? 60_000),
    });
    return { role: leg.role, ...signTronRaw(raw, request.key.privateKey) };
  });
  const broadcast: string[] = [];
  if (!request.dryRun) {
    for (const tx of transactions) {
      const answer = await post<{ result?: boolean; txid?: string; code?: string; message?: string }>(
        '/wallet/broadcasthex',
        { transaction: tx.transactionHex },
      );
      if (!answer.result)
        throw new KeyError(
          `broadcast of the ${tx.role} refused: ${answer.code ?? ''} ${decodeMessage(answer.message)}`.trim(),
        );
      broadcast.push(tx.txID);
    }
  }
  return { quote, transactions, broadcast };
}

/** java-tron returns `message` hex-encoded. */
function decodeMessage(message: string | undefined): string {
  if (!message) return '';
  if (!/^[0-9a-f]+$/i.test(message) || message.length % 2) return message;
  return new TextDecoder().decode(Uint8Array.from(message.match(/../g)!.map((h) => parseInt(h, 16))));
}
