/**
 * What the wallet view keeps (D-177): the unlocked session (view-lock.ts). Unlocking opens the keystore with
 * the password, derives the public addresses per chain and signs in to the wallet session API set on the
 * options page (sources.ts, D-176); the keys themselves are wiped at once. Locking, or {@link UNLOCK_MS}
 * passing, forgets all of it, and the service worker refuses signing while locked.
 */
import {
  createWalletClient,
  deriveChainKey,
  identitySignerWeb,
  loginWithSigner,
  mnemonicToSeed,
  openKeystoreWeb,
  type KeystoreFile,
} from '@svckit/sdk/wallet-library/browser';
import { readSources } from './sources.ts';
import { sessionArea, UNLOCK_MS, VIEW_KEYS, type Unlocked } from './view-lock.ts';

export { lock, readUnlocked, UNLOCK_MS, VIEW_KEYS, type Unlocked } from './view-lock.ts';
export { readSources, saveSources, type ViewSources } from './sources.ts';

/** How long signing in to the wallet session API may take at unlock before the view goes on without history. */
export const LOGIN_TIMEOUT_MS = 10_000;

/** Opens the keystore with `password` (KeystoreError WRONG_PASSWORD_OR_TAMPERED when wrong), then unlocks. */
export async function unlockWithPassword(password: string, keystore: KeystoreFile): Promise<Unlocked> {
  const secrets = JSON.parse(new TextDecoder().decode(await openKeystoreWeb(password, keystore))) as {
    mnemonic: string;
    passphrase?: string;
  };
  return unlockWithSecrets(secrets.mnemonic, secrets.passphrase ?? '');
}

/**
 * Derives the public addresses and signs in to the wallet session API with the native account and the
 * identity (the library's login flow, session-flow.ts); every secret is wiped before this returns.
 */
export async function unlockWithSecrets(mnemonic: string, passphrase = ''): Promise<Unlocked> {
  const seed = mnemonicToSeed(mnemonic, passphrase);
  const evm = deriveChainKey(seed, 'evm', 0);
  const bitcoin = deriveChainKey(seed, 'bitcoin', 0);
  const tron = deriveChainKey(seed, 'tron', 0);
  bitcoin.privateKey.fill(0);
  tron.privateKey.fill(0);
  const identity = identitySignerWeb(seed);
  seed.fill(0);
  const sources = await readSources();
  let session: Unlocked['session'];
  try {
    const client = createWalletClient({
      baseUrl: new URL(sources.walletApiUrl).origin,
      fetch: timedFetch(LOGIN_TIMEOUT_MS),
    });
    const answer = await loginWithSigner({ client, key: evm, identity, retries: 1 });
    session = { token: answer.token, expiresAt: answer.expiresAt.getTime() };
  } catch (error) {
    session = { error: `could not sign in to ${sources.walletApiUrl}: ${(error as Error).message}` };
  } finally {
    evm.privateKey.fill(0);
    identity.wipe();
  }
  // The view locks when the wallet API's token runs out, so the activity it shows never goes stale silently.
  const cap = 'token' in session ? session.expiresAt : Number.POSITIVE_INFINITY;
  const unlocked: Unlocked = {
    until: Math.min(Date.now() + UNLOCK_MS, cap),
    svcId: identity.svcId,
    addresses: { evm: evm.address, bitcoin: bitcoin.address, tron: tron.address },
    session,
  };
  await sessionArea().set({ [VIEW_KEYS.unlocked]: unlocked });
  return unlocked;
}

/** fetch that gives up after `ms`. */
export function timedFetch(ms: number): typeof fetch {
  return (input, init) => fetch(input, { ...init, signal: AbortSignal.timeout(ms) });
}
