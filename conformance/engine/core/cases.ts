/** The case model every contract format generates: its phases, kinds and inputs, and how a value goes on the wire. */
import type { EngineSurface } from '../openapi/contract.ts';

/** The engine's phases; `stateful` runs sequences of operations (links between responses, lifecycles; stateful.ts). */
export const PHASES = ['examples', 'coverage', 'fuzz', 'stateful'] as const;

/** One phase. */
export type Phase = (typeof PHASES)[number];

/** What a case expects of the server. */
export type CaseKind =
  | 'positive' // valid input: accepted (2xx) or refused only past validation (D-185)
  | 'negative' // invalid input: refused with 4xx in the error shape
  | 'missing_header' // a required header left out: 4xx
  | 'unauthenticated' // no credential on a secured operation: 401
  | 'bad_credentials' // a wrong credential on a secured operation: 401
  | 'unsupported_method' // a method the path does not document: 405 or 404
  | 'after_create' // a step of a sequence reading what an earlier step created: 2xx (and listed)
  | 'after_delete' // a step using a resource an earlier step deleted: 404
  | 'after_revoke'; // a step using a credential an earlier step revoked: 401

/** The values of one request: parameters by `in:name` (undefined: left out) and the JSON body. */
export interface CaseInput {
  params: Record<string, string | undefined>;
  body?: unknown;
}

/** One generated case. */
export interface EngineCase {
  surface: EngineSurface;
  /** `METHOD /route` of the contract. */
  operation: string;
  phase: Phase;
  kind: CaseKind;
  /** Why the case exists, e.g. `/amount below minimum 0.01`. */
  reason: string;
  input: CaseInput;
  /** The method sent (differs from the operation's for `unsupported_method`). */
  method: string;
  /** Whether the engine's credential for the surface is sent. */
  authenticated: boolean;
  /** A wrong Authorization value sent instead of the credential (`bad_credentials`). */
  authorization?: string;
  /** The sequence and step of a stateful case, e.g. `ledger lifecycle, step 4`. */
  sequence?: string;
  /** For `after_create`: the array (JSON pointer) of the answer that lists what was created, and a value one of its items holds. */
  listed?: { in: string; value?: string };
}

/** A parameter value as it goes on the wire. */
export function wire(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}
