/**
 * EVM transactions and EIP-712 typed data, signed on the client (specs/wallet.openapi.yaml rule 9). One
 * implementation for the Node library (send-evm.ts) and the browser extension (through browser.ts): viem's
 * local account signs, so both produce byte-identical transactions for the same fields. Browser-safe (no
 * node: imports).
 *
 * {@link fillEvmTransaction} fills what a dApp may leave out (EIP-1193 eth_sendTransaction): nonce from
 * eth_getTransactionCount "pending", gas from eth_estimateGas and the gas price from eth_gasPrice (0 on the
 * native chain, whose node runs with gas price 0). {@link platformFeeLeg} is the fee transfer of D-123.
 */
import { hashTypedData, validateTypedData, type Hex, type TypedDataDefinition } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { bytesToHex, KeyError } from './codec.ts';
import { applyFee, type FeeConfig, type FeeQuote } from './fees.ts';
import type { ChainKey } from './keys.ts';

/** An EVM transaction with every field the signature covers. */
export interface EvmTransactionFields {
  chainId: number;
  nonce: number;
  /** Absent for a contract creation. */
  to?: Hex;
  value: bigint;
  data?: Hex;
  gas: bigint;
  /** Legacy (EIP-155) pricing; set this or the two EIP-1559 fields. */
  gasPrice?: bigint;
  maxFeePerGas?: bigint;
  maxPriorityFeePerGas?: bigint;
}

/** What a dApp may leave out of a transaction before {@link fillEvmTransaction}. */
export type EvmTransactionDraft = Omit<EvmTransactionFields, 'nonce' | 'gas' | 'chainId'> & {
  nonce?: number;
  gas?: bigint;
};

/** A JSON-RPC call to the chain's endpoint (the gateway's /rpc on the native chain). */
export type EvmRpc = (method: string, params: unknown[]) => Promise<unknown>;

/** The private key of an EVM chain key as viem's account; KeyError for another family. */
function accountOf(key: Pick<ChainKey, 'family' | 'privateKey'>) {
  if (key.family !== 'evm') throw new KeyError(`expected an EVM key (m/44'/60'/0'/0/i), got a ${key.family} key`);
  return privateKeyToAccount(`0x${bytesToHex(key.privateKey)}`);
}

/** Signs a transaction: EIP-1559 when maxFeePerGas is set, legacy EIP-155 otherwise. Returns the raw bytes. */
export async function signEvmTransaction(
  key: Pick<ChainKey, 'family' | 'privateKey'>,
  tx: EvmTransactionFields,
): Promise<Hex> {
  const account = accountOf(key);
  const common = {
    chainId: tx.chainId,
    nonce: tx.nonce,
    value: tx.value,
    gas: tx.gas,
    // Lower case: the bytes signed do not depend on it, and viem rejects a mixed case that is not EIP-55.
    ...(tx.to ? { to: tx.to.toLowerCase() as Hex } : {}),
    ...(tx.data ? { data: tx.data } : {}),
  };
  if (tx.maxFeePerGas !== undefined)
    return account.signTransaction({
      ...common,
      type: 'eip1559',
      maxFeePerGas: tx.maxFeePerGas,
      maxPriorityFeePerGas: tx.maxPriorityFeePerGas ?? 0n,
    });
  return account.signTransaction({ ...common, type: 'legacy', gasPrice: tx.gasPrice ?? 0n });
}

/** Signs EIP-712 typed data (eth_signTypedData_v4): 0x + 130 hex, r || s || v. */
export async function signEvmTypedData(
  key: Pick<ChainKey, 'family' | 'privateKey'>,
  typedData: TypedDataDefinition,
): Promise<Hex> {
  return accountOf(key).signTypedData(typedData);
}

/** Fills nonce, gas and gas price of a draft from the chain (EIP-1193 eth_sendTransaction defaults). */
export async function fillEvmTransaction(
  rpc: EvmRpc,
  chainId: number,
  from: Hex,
  draft: EvmTransactionDraft,
): Promise<EvmTransactionFields> {
  const quantity = (value: unknown, what: string): bigint => {
    if (typeof value !== 'string' || !/^0x[0-9a-fA-F]{1,64}$/.test(value))
      throw new KeyError(`the chain answered ${what} with ${JSON.stringify(value)}, not a hex quantity`);
    return BigInt(value);
  };
  const call = {
    from,
    ...(draft.to ? { to: draft.to } : {}),
    value: `0x${draft.value.toString(16)}`,
    ...(draft.data ? { data: draft.data } : {}),
  };
  const [nonce, gas, gasPrice] = await Promise.all([
    draft.nonce ?? rpc('eth_getTransactionCount', [from, 'pending']).then((n) => Number(quantity(n, 'a nonce'))),
    draft.gas ?? rpc('eth_estimateGas', [call]).then((g) => quantity(g, 'a gas estimate')),
    draft.gasPrice ?? draft.maxFeePerGas ?? rpc('eth_gasPrice', []).then((p) => quantity(p, 'a gas price')),
  ]);
  const pricing =
    draft.maxFeePerGas !== undefined
      ? { maxFeePerGas: draft.maxFeePerGas, maxPriorityFeePerGas: draft.maxPriorityFeePerGas ?? 0n }
      : { gasPrice: gasPrice as bigint };
  return { ...draft, ...pricing, chainId, nonce: nonce as number, gas: gas as bigint };
}

/**
 * The platform fee of a value transfer (D-123): the quote and, when the fee is not zero, the fee transaction
 * to the chain's collector at the next nonce, priced like the transfer. FeeError when the fee cannot be paid.
 */
export function platformFeeLeg(
  fees: FeeConfig,
  transfer: EvmTransactionFields,
): { quote: FeeQuote; fee?: EvmTransactionFields } {
  const quote = applyFee(fees, String(transfer.chainId), transfer.value);
  if (quote.fee === 0n || !quote.collector) return { quote };
  return {
    quote,
    fee: {
      chainId: transfer.chainId,
      nonce: transfer.nonce + 1,
      to: quote.collector as Hex,
      value: quote.fee,
      gas: 21_000n, // a plain transfer; a caller whose collector may be a contract estimates it
      ...(transfer.maxFeePerGas !== undefined
        ? { maxFeePerGas: transfer.maxFeePerGas, maxPriorityFeePerGas: transfer.maxPriorityFeePerGas ?? 0n }
        : { gasPrice: transfer.gasPrice ?? 0n }),
    },
  };
}

/** Bounds of typed data a wallet accepts: its JSON size, the number of types and of fields per type. */
export const TYPED_DATA_LIMITS = Object.freeze({ jsonBytes: 64 * 1024, types: 64, fieldsPerType: 64 });

/**
 * Checks EIP-712 typed data (eth_signTypedData_v4 `{types, primaryType, domain, message}`) against its own
 * types, within {@link TYPED_DATA_LIMITS}; KeyError naming what is wrong. The dApp's EIP712Domain type, when
 * given, is kept, so the domain separator is the one it asked for.
 */
export function checkTypedData(value: unknown): TypedDataDefinition {
  const isObject = (v: unknown): v is Record<string, unknown> =>
    typeof v === 'object' && v !== null && !Array.isArray(v);
  if (!isObject(value) || !isObject(value.types) || typeof value.primaryType !== 'string' || !isObject(value.message))
    throw new KeyError('typed data expected {types, primaryType, domain, message} (EIP-712)');
  if (value.domain !== undefined && !isObject(value.domain))
    throw new KeyError('typed data "domain" expected an object');
  const types = value.types;
  const names = Object.keys(types);
  if (names.length > TYPED_DATA_LIMITS.types)
    throw new KeyError(`typed data declares ${names.length} types, at most ${TYPED_DATA_LIMITS.types}`);
  for (const name of names) {
    const fields = types[name];
    if (!Array.isArray(fields) || fields.length > TYPED_DATA_LIMITS.fieldsPerType)
      throw new KeyError(`typed data type "${name}" expected at most ${TYPED_DATA_LIMITS.fieldsPerType} {name, type}`);
    for (const f of fields)
      if (!isObject(f) || typeof f.name !== 'string' || typeof f.type !== 'string')
        throw new KeyError(`typed data type "${name}" has a field that is not {name, type}`);
  }
  if (!types[value.primaryType] && value.primaryType !== 'EIP712Domain')
    throw new KeyError(`typed data primaryType "${value.primaryType}" is not among its types`);
  const definition = {
    types,
    primaryType: value.primaryType,
    domain: (value.domain ?? {}) as TypedDataDefinition['domain'],
    message: value.message,
  } as TypedDataDefinition;
  try {
    validateTypedData(definition);
    hashTypedData(definition);
  } catch (error) {
    throw new KeyError(`typed data does not match its types: ${(error as Error).message.split('\n')[0]}`);
  }
  return definition;
}
