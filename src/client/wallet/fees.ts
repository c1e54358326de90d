/**
 * The platform fee (specs/wallet.openapi.yaml rule 9: "The client must read `GET /fees/config` and
 * honour the fee (basis points) before signing"; `FeeConfig`, D-014). D-123:
 *   fee   = ceil(amount x feeBps / 10000), in the chain's base unit (wei, satoshi, sun), bigint arithmetic;
 *           rounding up so the collector never receives less than the advertised rate;
 *   the recipient receives `amount` exactly; the sender pays amount + fee (+ the network's own fee);
 *   the fee goes to the chain's collector; feeBps 0 means no fee transfer. With feeBps > 0 and no collector
 *   for the chain the client refuses to sign (it cannot honour the fee).
 */
import type { FeeConfig } from '../../../generated/wallet/types.gen.ts';
import { SvcError } from '../../errors.ts';

export type { FeeConfig } from '../../../generated/wallet/types.gen.ts';

/** Thrown when a fee configuration is malformed or cannot be honoured. */
export class FeeError extends SvcError<'INVALID_FEE'> {
  override name = 'FeeError';
  /** Builds the error; its code is always `INVALID_FEE`. */
  constructor(message: string, options?: { cause?: unknown }) {
    super('INVALID_FEE', message, options);
  }
}

/** The fee of an amount at a rate in basis points, rounded up (D-123). */
export function computeFee(amount: bigint, feeBps: number): bigint {
  if (typeof amount !== 'bigint' || amount < 0n)
    throw new FeeError(`"amount" expected a non-negative bigint in the base unit, got ${String(amount)}`);
  checkBps(feeBps);
  const numerator = amount * BigInt(feeBps);
  return (numerator + 9_999n) / 10_000n;
}

/** A transfer with the platform fee applied: what is signed. */
export interface FeeQuote {
  chainId: string;
  /** What the recipient receives. */
  amount: bigint;
  /** The platform fee (0n when feeBps is 0). */
  fee: bigint;
  /** amount + fee: what leaves the sender, before the network fee. */
  total: bigint;
  feeBps: number;
  /** The collector address on this chain; undefined when the fee is 0. */
  collector: string | undefined;
}

/** Applies a fee configuration to an amount on a chain; FeeError when the fee cannot be honoured. */
export function applyFee(config: FeeConfig, chainId: string, amount: bigint): FeeQuote {
  checkConfig(config);
  const fee = computeFee(amount, config.feeBps);
  const collector = config.collectors.find((c) => c.chainId === chainId)?.address;
  if (fee > 0n && !collector)
    throw new FeeError(
      `the fee configuration charges ${config.feeBps} bp but names no collector for chain ${chainId}: refusing to sign a transfer whose fee cannot be paid`,
    );
  return {
    chainId,
    amount,
    fee,
    total: amount + fee,
    feeBps: config.feeBps,
    collector: fee > 0n ? collector : undefined,
  };
}

/** Validates a `FeeConfig` as the contract defines it (feeBps integer 0..10000, at most one collector per chain). */
export function checkConfig(config: FeeConfig): void {
  if (!config || typeof config !== 'object' || !Array.isArray(config.collectors))
    throw new FeeError('fee configuration expected {feeBps, collectors, updatedAt} (D-014)');
  checkBps(config.feeBps);
  const seen = new Set<string>();
  for (const c of config.collectors) {
    if (seen.has(c.chainId)) throw new FeeError(`fee configuration names two collectors for chain ${c.chainId}`);
    seen.add(c.chainId);
  }
}

/** The generated SDK's fee operation, as {@link fetchFeeConfig} needs it. */
export type FeeConfigReader = () => Promise<{ data?: FeeConfig; error?: unknown; response?: Response }>;

/** Reads `GET /fees/config` (call it right before signing) and validates it. */
export async function fetchFeeConfig(read: FeeConfigReader): Promise<FeeConfig> {
  const { data, error, response } = await read();
  if (!data)
    throw new FeeError(
      `GET /fees/config failed (${response?.status ?? 'no response'}): ${JSON.stringify(error)}; refusing to sign without the fee configuration`,
    );
  checkConfig(data);
  return data;
}

function checkBps(feeBps: number): void {
  if (!Number.isInteger(feeBps) || feeBps < 0 || feeBps > 10_000)
    throw new FeeError(`"feeBps" expected an integer 0 to 10000 (D-014), got ${feeBps}`);
}
