/**
 * The wallet library's browser-safe module: the one implementation of keys, signing, fees, networks, the
 * keystore, the identity, the session login and the balances that the browser extension bundles
 * (scripts/build-extension.ts) and the Node library uses. Nothing reachable from here imports node: built-ins; the extension imports signing and
 * network code only through this module (test/wallet-client/extension-structure.test.ts).
 */
export { bytesToHex, hexToBytes, familyOfAddress, toChecksumAddress, KeyError } from './codec.ts';
export { deriveChainKey, generateMnemonic, isValidMnemonic, mnemonicToSeed, type ChainKey } from './keys.ts';
export { signChainMessage, recoverChainMessageSigner } from './sign-message.ts';
export {
  NetworkRegistry,
  NetworkError,
  BUILTIN_NETWORKS,
  NATIVE_CHAIN_ID,
  chainIdHex,
  type Network,
  type CustomEvmNetwork,
} from './networks.ts';
export { applyFee, checkConfig, computeFee, FeeError, type FeeConfig, type FeeQuote } from './fees.ts';
export {
  checkTypedData,
  fillEvmTransaction,
  platformFeeLeg,
  signEvmTransaction,
  signEvmTypedData,
  TYPED_DATA_LIMITS,
  type EvmRpc,
  type EvmTransactionDraft,
  type EvmTransactionFields,
} from './evm-tx.ts';
export { identityKeyPairWeb, identitySignerWeb, signWithIdentityWeb, svcIdOfSeed } from './identity-web.ts';
export { argon2idWeb, openKeystoreWeb, sealKeystoreWeb } from './keystore-web.ts';
export { checkChallengeMessage, registrationMessage, SessionError } from './session-messages.ts';
export { KeystoreError, type KeystoreFile } from './keystore-format.ts';
export { loginWithSigner, type IdentitySigner, type Session } from './session-flow.ts';
/** Balances per chain, and base-unit amounts in their asset (wei to SVC or ETH) for the view and approval window. */
export { formatUnits, readBalance, type BalanceReading } from './balances.ts';
/** The generated wallet session API client (D-014) that the login and GET /history go through. */
export {
  createClient as createWalletClient,
  type Client as WalletClient,
} from '../../../generated/wallet/client/index.ts';
export { walletGetHistory } from '../../../generated/wallet/sdk.gen.ts';
export type { HistoryItem, HistoryResponse } from '../../../generated/wallet/types.gen.ts';
