/** What a Wycheproof handler is: how one vector family is run against an implementation, and its verdict. */
import type { ImplementationId } from '../implementations.ts';
import type { JsonObject } from '../vectors.ts';

/** A handler's answer: did the implementation accept the case, and why not. */
export interface Verdict {
  /** Accepted the input and produced the expected outputs (for verification: the signature verified). */
  accepted: boolean;
  /** What happened, when not accepted (or when outputs differed). */
  detail?: string;
}

/** One Wycheproof test group type. */
export interface WycheproofHandler {
  /** The group "type" it reads. */
  type: string;
  /** Short description of a group. */
  describeGroup(file: JsonObject, group: JsonObject): string;
  /** A reason to skip the group for every implementation (out of scope), if any. */
  groupSkipReason(file: JsonObject, group: JsonObject): string | undefined;
  /** Runs one case. */
  run(group: JsonObject, test: JsonObject, impl: ImplementationId): Verdict;
}
