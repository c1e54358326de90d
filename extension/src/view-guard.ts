/**
 * The service worker's side of the view's lock (D-177): while the wallet is locked, every request that
 * would sign is refused with EIP-1193 4100 (Unauthorized) before any approval window opens, and a signature
 * already approved is refused too if the wallet was locked in between. Connecting and reads are not gated.
 */
import { ERRORS, ProviderRpcError } from './protocol.ts';
import type { RouterDeps } from './router.ts';
import { readUnlocked } from './view-lock.ts';

/** The message a dApp receives while the wallet is locked. */
export const LOCKED_MESSAGE = 'the svckit wallet is locked: unlock it in the extension (toolbar button) first';

/** Wraps the router's dependencies so signing needs the unlocked session; returns the same object. */
export function guardSigning<T extends Pick<RouterDeps, 'approve' | 'personalSign'>>(deps: T): T {
  const approve = deps.approve.bind(deps);
  const personalSign = deps.personalSign.bind(deps);
  deps.approve = async (request) => {
    if (request.kind !== 'connect') await assertUnlocked();
    return approve(request);
  };
  deps.personalSign = async (...args) => {
    await assertUnlocked();
    return personalSign(...args);
  };
  return deps;
}

async function assertUnlocked(): Promise<void> {
  if (!(await readUnlocked())) throw new ProviderRpcError(ERRORS.unauthorized, LOCKED_MESSAGE);
}
