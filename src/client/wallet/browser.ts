/**
 * The wallet library's browser-safe module: the one implementation of keys, signing, fees, networks, the
 * keystore and the session texts that the browser extension bundles (scripts/build-extension.ts) and the Node
 * library uses. Nothing reachable from here imports node: built-ins; the extension imports signing and
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
export { identityKeyPairWeb, signWithIdentityWeb, svcIdOfSeed } from './identity-web.ts';
export { argon2idWeb, openKeystoreWeb, sealKeystoreWeb } from './keystore-web.ts';
export { checkChallengeMessage, registrationMessage, SessionError } from './session-messages.ts';
export type { KeystoreFile } from './keystore-format.ts';
/** Amounts in a chain's base unit shown in its asset (wei to SVC or ETH, for the approval window). */
export { formatUnits } from 'viem';
