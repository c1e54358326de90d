/**
 * The QBFT views (spec: "Validator list", "Governance view"): validator metadata joined with the chain's
 * current validator set and the proposers (block miners) of the sample window.
 */
import { getAddress, type Hex } from 'viem';
import type { QbftParameters, Validator } from '@svckit/sdk/explorer';
import { quorums } from '../../node/qbft/consensus.ts';
import type { ValidatorIdentity } from '../../node/qbft/validators.ts';
import { ErrorCode, RestError } from '../http/errors.ts';

/** spec: "sampleBlocks (integer, size of the window used for blocksProposed; 50)". */
export const SAMPLE_BLOCKS = 50;

/** spec: "Block period | 2 seconds | consensus parameter". */
export const BLOCK_PERIOD_SECONDS = 2;

/** spec: "Consensus request time-out | 10 seconds | consensus parameter". */
export const REQUEST_TIMEOUT_SECONDS = 10;

/** The 503 of an external chain, whose validator names and post-quantum addresses this stack does not know. */
export const metadataUnknown = (detail: string) =>
  new RestError(
    ErrorCode.VALIDATOR_METADATA_UNAVAILABLE,
    `validator metadata (name, pqcAddress) is unknown: ${detail}`,
  );

/**
 * The Validator entries: the current set (qbft_getValidatorsByBlockNumber at the head) first, then the
 * other validators with metadata (isActive false, e.g. voted out). `miners` are the window's block miners.
 * A current validator without metadata (added by a vote) is a 503: its name and pqcAddress are not invented.
 */
export function validatorEntries(
  identities: readonly ValidatorIdentity[],
  currentSet: readonly string[],
  miners: readonly string[],
): Validator[] {
  const byAddress = new Map(identities.map((v) => [v.address.toLowerCase(), v]));
  const proposed = new Map<string, number>();
  for (const miner of miners) proposed.set(miner.toLowerCase(), (proposed.get(miner.toLowerCase()) ?? 0) + 1);
  const active = new Set(currentSet.map((a) => a.toLowerCase()));
  const entry = (address: string, isActive: boolean): Validator => {
    const identity = byAddress.get(address);
    if (!identity)
      throw metadataUnknown(`validator ${getAddress(address as Hex)} is in the current set but has no metadata`);
    return {
      address: getAddress(identity.address),
      name: identity.name,
      pqcAddress: getAddress(identity.pqcAddress),
      // spec: "blocksProposed (integer, count within the sample window)".
      blocksProposed: proposed.get(address) ?? 0,
      isActive,
    };
  };
  const inactive = [...byAddress.keys()].filter((a) => !active.has(a)).sort();
  return [...[...active].map((a) => entry(a, true)), ...inactive.map((a) => entry(a, false))];
}

/** spec: "qbft, an object with n (integer, validator count), f (integer, tolerated faults), threshold (integer), ...". */
export function qbftParameters(n: number): QbftParameters {
  const { f, threshold } = quorums(n); // D-037: f = floor((n-1)/3), threshold = ceil(2n/3)
  return { n, f, threshold, blockPeriodSeconds: BLOCK_PERIOD_SECONDS, requestTimeoutSeconds: REQUEST_TIMEOUT_SECONDS };
}
