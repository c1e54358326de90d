/**
 * What the wallet view keeps (D-177): the sources it reads (chrome.storage.local, public URLs only) and
 * the unlocked session (view-lock.ts). Unlocking opens the keystore with the password, derives the public
 * addresses per chain and signs in to the wallet session API; the keys themselves are wiped at once. Locking, or
 * {@link UNLOCK_MS} passing, forgets all of it, and the service worker refuses signing while locked.
 */
import { createClient } from '../../generated/wallet/client/index.ts';
import { identityKeySeed, svcIdOf } from '../../src/client/wallet/codec.ts';
import { deriveChainKey, mnemonicToSeed } from '../../src/client/wallet/keys.ts';
import type { KeystoreFile } from '../../src/client/wallet/keystore-format.ts';
import { loginWithSigner } from '../../src/client/wallet/session-flow.ts';
import { ml_dsa65 } from '@noble/post-quantum/ml-dsa.js';
import { chromeApi } from './chrome.ts';
import { openKeystoreWeb } from './keystore-web.ts';
import { sessionArea, UNLOCK_MS, VIEW_KEYS, type Unlocked } from './view-lock.ts';

export { lock, readUnlocked, UNLOCK_MS, VIEW_KEYS, type Unlocked } from './view-lock.ts';

/** How long signing in to the wallet session API may take at unlock before the view goes on without history. */
export const LOGIN_TIMEOUT_MS = 10_000;

/** Default wallet session API of the reference stack (`npm start`, SVC_WALLET_PORT 8444). */
export const DEFAULT_WALLET_API = 'https://localhost:8444';

/** Where the view reads from, besides the native chain's gateway (WalletState.rpcUrls). */
export interface ViewSources {
  /** {wallet_api_url}: the wallet session API, for GET /history. */
  walletApi: string;
  /** Ethereum JSON-RPC; unset means "not configured". */
  ethereum?: string;
  /** Esplora-compatible Bitcoin API. */
  bitcoin?: string;
  /** TronGrid-compatible Tron API. */
  tron?: string;
}

/** The sources as stored, with the default wallet API. */
export async function readSources(): Promise<ViewSources> {
  const stored = (await chromeApi().storage.local.get(VIEW_KEYS.sources))[VIEW_KEYS.sources] as
    | Partial<ViewSources>
    | undefined;
  return { walletApi: DEFAULT_WALLET_API, ...stored };
}

/** Stores the sources (each an http(s) URL or absent); throws a readable Error for anything else. */
export async function saveSources(sources: ViewSources): Promise<void> {
  const checked: ViewSources = { walletApi: checkedUrl('Wallet session API', sources.walletApi) };
  for (const key of ['ethereum', 'bitcoin', 'tron'] as const) {
    const value = sources[key]?.trim();
    if (value) checked[key] = checkedUrl(key, value);
  }
  await chromeApi().storage.local.set({ [VIEW_KEYS.sources]: checked });
}

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
  const xi = identityKeySeed(seed);
  seed.fill(0);
  const { publicKey, secretKey } = ml_dsa65.keygen(xi);
  xi.fill(0);
  const svcId = svcIdOf(publicKey);
  const sources = await readSources();
  let session: Unlocked['session'];
  try {
    const client = createClient({ baseUrl: new URL(sources.walletApi).origin, fetch: timedFetch(LOGIN_TIMEOUT_MS) });
    const answer = await loginWithSigner({
      client,
      key: evm,
      identity: { svcId, publicKey, sign: (m) => ml_dsa65.sign(new TextEncoder().encode(m), secretKey) },
      retries: 1,
    });
    session = { token: answer.token, expiresAt: answer.expiresAt.getTime() };
  } catch (error) {
    session = { error: `could not sign in to ${sources.walletApi}: ${(error as Error).message}` };
  } finally {
    evm.privateKey.fill(0);
    secretKey.fill(0);
  }
  // The view locks when the wallet API's token runs out, so the activity it shows never goes stale silently.
  const cap = 'token' in session ? session.expiresAt : Number.POSITIVE_INFINITY;
  const unlocked: Unlocked = {
    until: Math.min(Date.now() + UNLOCK_MS, cap),
    svcId,
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

function checkedUrl(name: string, value: string): string {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw new Error(`${name}: expected an http(s) URL, got ${JSON.stringify(value)}`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new Error(`${name}: expected http: or https:, got ${url.protocol}`);
  if (url.username || url.password) throw new Error(`${name}: put no user name or password in the URL`);
  return url.href;
}
