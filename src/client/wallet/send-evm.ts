/**
 * Native-asset sends on EVM chains (the native settlement network included): read the fee configuration,
 * apply it, sign on the client and broadcast to the chain's own JSON-RPC (rule 9). D-123/C7:
 * two EIP-1559 transactions (legacy when the node reports no base fee) signed before either is sent, the
 * transfer at nonce n and the platform fee to the chain's collector at nonce n + 1; the transfer is broadcast
 * first. The client checks eth_chainId and the balance before signing.
 */
import { createPublicClient, http, keccak256, type Hex, type PublicClient } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { applyFee, type FeeConfig, type FeeQuote } from './fees.ts';
import { bytesToHex, KeyError } from './codec.ts';
import { signEvmTransaction } from './evm-tx.ts';
import type { ChainKey } from './keys.ts';

/** A native-asset transfer on an EVM chain. */
export interface EvmSendRequest {
  /** Decimal EIP-155 `ChainId`. */
  chainId: string;
  /** The chain's JSON-RPC endpoint. */
  rpcUrl: string;
  /** Sender key (m/44'/60'/0'/0/i). */
  key: ChainKey;
  to: string;
  /** Amount the recipient receives, in wei. */
  amount: bigint;
  /** The fee configuration read from GET /fees/config right before this call. */
  fees: FeeConfig;
  /** fetch to use (a custom CA, a test double). */
  fetch?: typeof fetch;
  /** Sign only, do not broadcast. */
  dryRun?: boolean;
}

/** One signed transaction of a send. */
export interface SignedEvmTransaction {
  role: 'transfer' | 'fee';
  to: string;
  value: bigint;
  nonce: number;
  raw: Hex;
  hash: Hex;
}

/** The outcome of {@link sendEvm}. */
export interface EvmSendResult {
  quote: FeeQuote;
  transactions: SignedEvmTransaction[];
  /** Hashes the node accepted, in broadcast order. */
  broadcast: Hex[];
}

/** Signs the transfer and its fee and broadcasts them (transfer first). */
export async function sendEvm(request: EvmSendRequest): Promise<EvmSendResult> {
  if (request.key.family !== 'evm')
    throw new KeyError(`sendEvm expected an EVM key (m/44'/60'/0'/0/i), got a ${request.key.family} key`);
  if (!/^0x[0-9a-fA-F]{40}$/.test(request.to))
    throw new KeyError(`"to" expected 0x + 40 hex, got ${JSON.stringify(request.to)}`);
  const quote = applyFee(request.fees, request.chainId, request.amount);
  const client = createPublicClient({
    transport: http(request.rpcUrl, request.fetch ? { fetchFn: request.fetch } : {}),
  }) as PublicClient;
  const account = privateKeyToAccount(`0x${bytesToHex(request.key.privateKey)}`);
  const chainId = Number(request.chainId);
  const nodeChainId = await client.getChainId();
  if (nodeChainId !== chainId)
    throw new KeyError(`the RPC endpoint serves chain ${nodeChainId}, not ${request.chainId}: refusing to sign`);

  const legs: Array<{ role: 'transfer' | 'fee'; to: string; value: bigint }> = [
    { role: 'transfer', to: request.to, value: quote.amount },
  ];
  if (quote.fee > 0n && quote.collector) legs.push({ role: 'fee', to: quote.collector, value: quote.fee });
  const [nonce, balance, block] = await Promise.all([
    client.getTransactionCount({ address: account.address, blockTag: 'pending' }),
    client.getBalance({ address: account.address }),
    client.getBlock({ blockTag: 'latest' }),
  ]);
  const eip1559 = block.baseFeePerGas !== null && block.baseFeePerGas !== undefined;
  const gasPrice = eip1559 ? undefined : await client.getGasPrice();
  const fees = eip1559 ? await client.estimateFeesPerGas({ chain: null, type: 'eip1559' }) : undefined;
  const maxFee = fees?.maxFeePerGas ?? gasPrice ?? 0n;
  const gases = await Promise.all(
    legs.map((leg) => client.estimateGas({ account: account.address, to: leg.to as Hex, value: leg.value })),
  );
  const needed = quote.total + gases.reduce((sum, gas) => sum + gas * maxFee, 0n);
  if (balance < needed)
    throw new KeyError(
      `balance ${balance} wei of ${account.address} is below ${needed} wei (amount + platform fee + network fee): nothing signed`,
    );

  const transactions: SignedEvmTransaction[] = [];
  for (const [i, leg] of legs.entries()) {
    // One signer for the library and the extension (evm-tx.ts).
    const raw = await signEvmTransaction(request.key, {
      chainId,
      nonce: nonce + i,
      to: leg.to as Hex,
      value: leg.value,
      gas: gases[i]!,
      ...(eip1559
        ? { maxFeePerGas: fees!.maxFeePerGas, maxPriorityFeePerGas: fees!.maxPriorityFeePerGas }
        : { gasPrice: gasPrice! }),
    });
    transactions.push({ ...leg, nonce: nonce + i, raw, hash: keccak256(raw) });
  }
  const broadcast: Hex[] = [];
  if (!request.dryRun) {
    for (const tx of transactions) broadcast.push(await client.sendRawTransaction({ serializedTransaction: tx.raw }));
  }
  return { quote, transactions, broadcast };
}
