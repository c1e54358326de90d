import type { Target } from './target.ts';

/** A target with no running service: only checks that need nothing but the contract files run. */
export function specsOnlyTarget(): Target {
  return { kind: 'specs-only', capabilities: new Set(['specs']) };
}
