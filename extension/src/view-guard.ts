/**
 * The service worker's side of the view's lock (D-177): while the wallet is locked, every request that would
 * open the keystore is refused with EIP-1193 4100 (Unauthorized) before any approval window opens, and a
 * keystore opening already approved is refused too if the wallet was locked in between. Connecting, adding
 * a network and reads are not gated.
 */
import { ERRORS, ProviderRpcError } from './protocol.ts';
import type { RouterDeps } from './router.ts';
import { readUnlocked } from './view-lock.ts';

/** The message a dApp receives while the wallet is locked. */
export const LOCKED_MESSAGE = 'the svckit wallet is locked: unlock it in the extension (toolbar button) first';

/** Wraps the router's dependencies so opening the keystore needs the unlocked session; returns the same object. */
export function guardSigning<T extends Pick<RouterDeps, 'approve' | 'withSeed'>>(deps: T): T {
  const approve = deps.approve.bind(deps);
  const withSeed = deps.withSeed.bind(deps);
  deps.approve = async (request) => {
    if (request.password) await assertUnlocked();
    return approve(request);
  };
  deps.withSeed = async (state, password, use) => {
    await assertUnlocked();
    return withSeed(state, password, use);
  };
  return deps;
}

async function assertUnlocked(): Promise<void> {
  if (!(await readUnlocked())) throw new ProviderRpcError(ERRORS.unauthorized, LOCKED_MESSAGE);
}
