/**
 * What the extension stores in chrome.storage.local: public values and the password-sealed keystore only
 * (spec rule 1 and rule 8). Nothing secret is ever stored in clear.
 */
import { NATIVE_CHAIN_ID, type KeystoreFile } from '@svckit/sdk/wallet-library/browser';

/** The wallet as stored. */
export interface WalletState {
  /** The sealed mnemonic (keystore-format.ts), opened only to sign. */
  keystore: KeystoreFile;
  /** EIP-55 addresses of m/44'/60'/0'/0/i, public. */
  accounts: string[];
  /** The selected EVM chain, decimal (`ChainId`). */
  chainId: string;
  /** JSON-RPC endpoint per EVM chain; the native chain's is the gateway's /rpc. */
  rpcUrls: Record<string, string>;
  /** The identity's svcId, shown to the user. */
  svcId?: string;
  /** Custom EVM networks added by wallet_addEthereumChain (EIP-3085), by decimal chain id; endpoints in rpcUrls. */
  networks?: Record<string, { name: string; symbol: string; decimals: number }>;
}

/** Storage keys. */
export const KEYS = Object.freeze({ wallet: 'wallet', connected: 'connectedOrigins' });

/** Default gateway of the reference stack (`npm start`). */
export const DEFAULT_GATEWAY = 'https://localhost:8443/rpc';

/** A fresh state for a wallet with one account. */
export function initialState(keystore: KeystoreFile, account: string, gatewayUrl: string, svcId?: string): WalletState {
  return {
    keystore,
    accounts: [account],
    chainId: NATIVE_CHAIN_ID,
    rpcUrls: { [NATIVE_CHAIN_ID]: gatewayUrl },
    ...(svcId ? { svcId } : {}),
  };
}
