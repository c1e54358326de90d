// The chain JSON-RPC checks (surface C, ids `chain.*`): fixed values, every method's result against
// specs/chain.openrpc.json, the error objects and batches, and the QBFT methods.
import type { Check } from '../../catalogue.ts';
import { chainErrorChecks } from './errors.ts';
import { chainMethodChecks } from './methods.ts';
import { chainQbftChecks } from './qbft.ts';
import { chainValueChecks } from './values.ts';

/** Every `chain.*` check, in run order. */
export function chainChecks(): Check[] {
  return [...chainValueChecks(), ...chainMethodChecks(), ...chainErrorChecks(), ...chainQbftChecks()];
}
