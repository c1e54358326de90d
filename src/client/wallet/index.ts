/**
 * The svckit wallet client library (specs/wallet.openapi.yaml rules 1 to 9): seed and
 * ML-DSA-65 identity, chain keys for the native chain, EVM chains, Bitcoin and Tron, the Argon2id keystore,
 * ML-KEM-768 cross-device sync, 2-of-3 guardian recovery, fee-honouring sends and session login.
 */
export { Wallet, type WalletOptions, type SendRequest } from './wallet.ts';
export { deriveIdentity, signWithIdentity, verifyIdentitySignature, type WalletIdentity } from './identity.ts';
export {
  deriveChainKey,
  derivationPath,
  generateMnemonic,
  isValidMnemonic,
  mnemonicToSeed,
  mnemonicEntropy,
  mnemonicFromEntropy,
  type ChainKey,
} from './keys.ts';
export {
  svcIdOf,
  IDENTITY_INFO,
  addressOf,
  evmAddress,
  bitcoinP2wpkhAddress,
  tronAddress,
  toChecksumAddress,
  familyOfAddress,
  addressFamily,
  p2wpkhProgram,
  tronAddressBytes,
  KeyError,
} from './codec.ts';
export {
  NetworkRegistry,
  NetworkError,
  BUILTIN_NETWORKS,
  NATIVE_CHAIN_ID,
  chainIdHex,
  type Network,
  type ChainFamily,
  type CustomEvmNetwork,
} from './networks.ts';
export {
  signChainMessage,
  recoverChainMessageSigner,
  verifyChainMessage,
  eip191Digest,
  tip191Digest,
  bip137Digest,
} from './sign-message.ts';
export {
  sealKeystore,
  openKeystore,
  sealWalletSecrets,
  openWalletSecrets,
  argon2idKey,
  type WalletSecrets,
  type SealOptions,
} from './keystore.ts';
export { DEFAULT_ARGON2ID, KeystoreError, type Argon2idParams, type KeystoreFile } from './keystore-format.ts';
export {
  createSyncDevice,
  deviceIdOf,
  sealSyncEnvelope,
  openSyncEnvelope,
  SyncError,
  MAX_SYNC_PLAINTEXT,
  type SyncDeviceKeys,
  type SyncPeer,
  type SyncMessage,
} from './sync.ts';
export { SyncClient } from './sync-client.ts';
export {
  splitForGuardians,
  recoverFromShares,
  sealServiceShare,
  openServiceShare,
  RecoveryError,
  type GuardianShare,
  type GuardianShares,
  type ShareHolder,
} from './recovery.ts';
export {
  readBalance,
  formatUnits,
  BALANCE_TIMEOUT_MS,
  type BalanceReading,
  type BalanceOptions,
} from './balances.ts';
export { computeFee, applyFee, fetchFeeConfig, FeeError, type FeeQuote } from './fees.ts';
export { sendEvm, type EvmSendRequest, type EvmSendResult } from './send-evm.ts';
export { sendBitcoin, type BitcoinSendRequest, type BitcoinSendResult } from './send-bitcoin.ts';
export { sendTron, type TronSendRequest, type TronSendResult } from './send-tron.ts';
export {
  requestSignUpCode,
  signUp,
  recover,
  signIn,
  closeAccount,
  managedAuthKey,
  normaliseEmail,
  ManagedError,
  MANAGED_AUTH_CONTEXT,
  MANAGED_KDF_BOUNDS,
  checkManagedKdf,
  type SignUpOptions,
  type SignUpResult,
  type RecoverOptions,
} from './managed.ts';
export {
  login,
  loginWithSigner,
  checkChallengeMessage,
  registrationMessage,
  verifySessionToken,
  verifyAuthorizationRecord,
  authorizedClient,
  SessionError,
  type IdentitySigner,
  type LoginOptions,
  type Session,
} from './session.ts';
