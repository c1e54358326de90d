// One in-process reference target per test worker (D-227): the fast tier runs its files one after another in one
// process per worker, so files that need only a plain stack with the harness's settings share the first one
// started there instead of each paying for its own Anvil nodes, PGlite database and three TLS origins.
// A file that drives the stack (its clock, its blocks, a held broadcast) or needs other settings starts its own
// with referenceTarget() or startTestStack(). The shared target offers no in-process control, so a check that
// would need it is skipped, which the files' none-skipped assertions catch. It is never closed by a file: the
// worker's end stops its Anvil children (prool spawns them with execa's clean-up), and the temporary directory
// of the run goes with test/support/global-setup.ts.
import { referenceTarget } from '../../conformance/targets/reference.ts';
import type { Target } from '../../conformance/targets/target.ts';

let shared: Promise<Target> | undefined;

/** This worker's shared reference target, started on first use; its `close` is absent (nothing to do per file). */
export function sharedReferenceTarget(): Promise<Target> {
  shared ??= referenceTarget().then((started) => {
    const { reference: _control, close: _close, ...target } = started;
    const capabilities = new Set([...started.capabilities].filter((capability) => capability !== 'reference'));
    return { ...target, capabilities };
  });
  return shared;
}
