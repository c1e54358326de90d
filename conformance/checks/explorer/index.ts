// The explorer REST API checks (surface D, spec: "All endpoints are GET under {base_url}/api and return
// JSON."): every endpoint against the response schemas of specs/explorer.openapi.yaml, the error answers
// for bad and unknown ids, each view against the JSON-RPC calls it wraps, and the /txns cache and scan
// windows on the reference stack's injectable clock.
import type { Check } from '../../catalogue.ts';
import { explorerAccountChecks } from './accounts.ts';
import { explorerChainChecks } from './blocks.ts';
import { explorerConsensusChecks } from './consensus.ts';
import { explorerTxnsChecks } from './txns.ts';

/** Every `explorer.*` check, in run order. */
export function explorerChecks(): Check[] {
  return [...explorerChainChecks(), ...explorerTxnsChecks(), ...explorerAccountChecks(), ...explorerConsensusChecks()];
}
