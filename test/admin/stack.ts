// An in-process reference stack whose internals stay reachable (the chain node, the funding account), with
// a Target for the HTTPS helpers of support.ts: for tests that must put the node in a state no API reaches.
import type { Target } from '../../conformance/targets/target.ts';
import type { Stack } from '../../src/server/app.ts';
import { LIFTED_LIMITS, startTestStack } from '../support/stack.ts';

/** A running stack, its target and how to stop both. */
export type OpenStack = { stack: Stack; target: Target; close(): Promise<void> };

/**
 * Starts a stack (test/support/stack.ts: ports 0, instant mining; rate limits lifted) and returns it with its
 * Target: in memory, or persisted in `persistIn` (kept on close, so that another stack can start on it); its
 * log at `logLevel`.
 */
export async function openStack(
  env: Record<string, string> = {},
  persistIn?: string,
  logLevel = 'silent',
): Promise<OpenStack> {
  const started = await startTestStack({
    env: { ...LIFTED_LIMITS, ...env },
    ...(persistIn === undefined ? {} : { dataDir: persistIn }),
    logLevel,
  });
  return { stack: started.stack, target: started.target, close: started.close };
}
