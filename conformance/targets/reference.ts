import type { Target } from './target.ts';

/** The message referenceTarget() throws until the in-process reference stack exists. */
export const REFERENCE_TARGET_UNAVAILABLE =
  'the in-process reference stack is built by a later issue (Reference stack, part 1); use --base/--wallet/--site or the specs-only target';

/** The in-process reference stack target. Not built yet: always throws (no pretending). */
export function referenceTarget(): Target {
  throw new Error(REFERENCE_TARGET_UNAVAILABLE);
}
