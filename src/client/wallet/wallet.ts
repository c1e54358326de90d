/**
 * The wallet: one BIP-39 seed, its ML-DSA-65 identity (identity.ts), its chain keys (keys.ts) on the networks
 * it knows (networks.ts), its keystore (keystore.ts), session login (session.ts) and sends (send-*.ts).
 * Keys never leave the object except through the password-protected keystore (rule 1, rule 8).
 */
import type { Client } from '../../../generated/wallet/client/index.ts';
import * as sdk from '../../../generated/wallet/sdk.gen.ts';
import { readBalance, type BalanceOptions, type BalanceReading } from './balances.ts';
import { deriveIdentity, type WalletIdentity } from './identity.ts';
import { deriveChainKey, generateMnemonic, mnemonicToSeed, type ChainKey } from './keys.ts';
import { openWalletSecrets, sealWalletSecrets, type KeystoreFile, type SealOptions } from './keystore.ts';
import { NetworkRegistry, type ChainFamily } from './networks.ts';
import { fetchFeeConfig, type FeeConfig } from './fees.ts';
import { login, type LoginOptions, type Session } from './session.ts';
import { sendBitcoin, type BitcoinSendResult } from './send-bitcoin.ts';
import { sendEvm, type EvmSendResult } from './send-evm.ts';
import { sendTron, type TronSendResult } from './send-tron.ts';
import { createSyncDevice, exportSyncDevice, importSyncDevice, type SyncDeviceKeys } from './sync.ts';

/** Options of {@link Wallet.fromMnemonic}. */
export interface WalletOptions {
  /** BIP-39 passphrase; default none. */
  passphrase?: string;
  /** Networks (and their RPC endpoints); default the built-ins. */
  networks?: NetworkRegistry;
  /** This device's stored sync key, if any. */
  device?: { deviceId: string; deviceKemSeed: string };
}

/** A send request of {@link Wallet.send}. */
export interface SendRequest {
  chainId: string;
  to: string;
  /** Base units the recipient receives (wei, satoshi, sun). */
  amount: bigint;
  /** Address index of the sending key; default 0. */
  index?: number;
  /** The wallet client the fee configuration is read from right before signing (rule 9). */
  client?: Client;
  /** Or the configuration itself, read by the caller just before. */
  fees?: FeeConfig;
  fetch?: typeof fetch;
  dryRun?: boolean;
  /** Bitcoin only: sat/vB. */
  satPerVbyte?: number;
}

/** A non-custodial multi-chain wallet. */
export class Wallet {
  readonly #mnemonic: string;
  readonly #passphrase: string;
  readonly #seed: Uint8Array;
  /** The ML-DSA-65 identity and its svcId. */
  readonly identity: WalletIdentity;
  /** Networks this wallet signs for. */
  readonly networks: NetworkRegistry;
  #device: SyncDeviceKeys | undefined;

  private constructor(mnemonic: string, options: WalletOptions) {
    this.#mnemonic = mnemonic;
    this.#passphrase = options.passphrase ?? '';
    this.#seed = mnemonicToSeed(mnemonic, this.#passphrase);
    this.identity = deriveIdentity(this.#seed);
    this.networks = options.networks ?? new NetworkRegistry();
    this.#device = options.device ? importSyncDevice(options.device) : undefined;
  }

  /** A wallet from an existing mnemonic. */
  static fromMnemonic(mnemonic: string, options: WalletOptions = {}): Wallet {
    return new Wallet(mnemonic, options);
  }

  /** A new wallet with a fresh 24-word mnemonic (show it to the user once, for the paper backup). */
  static create(options: WalletOptions = {}): { wallet: Wallet; mnemonic: string } {
    const mnemonic = generateMnemonic(256);
    return { wallet: new Wallet(mnemonic, options), mnemonic };
  }

  /** Opens a keystore written by {@link Wallet.exportKeystore}. */
  static async fromKeystore(
    file: KeystoreFile | string,
    password: string,
    options: Omit<WalletOptions, 'passphrase' | 'device'> = {},
  ): Promise<Wallet> {
    const secrets = await openWalletSecrets(password, file);
    const device =
      secrets.deviceId && secrets.deviceKemSeed
        ? { deviceId: secrets.deviceId, deviceKemSeed: secrets.deviceKemSeed }
        : undefined;
    return new Wallet(secrets.mnemonic, {
      ...options,
      ...(secrets.passphrase ? { passphrase: secrets.passphrase } : {}),
      ...(device ? { device } : {}),
    });
  }

  /** The identity's svcId (D-031). */
  get svcId(): string {
    return this.identity.svcId;
  }

  /** The chain key of a `ChainId` (or a family) at an address index. */
  key(chain: string, index = 0): ChainKey {
    const family: ChainFamily =
      chain === 'evm' || chain === 'bitcoin' || chain === 'tron' ? chain : this.networks.get(chain).family;
    return deriveChainKey(this.#seed, family, index);
  }

  /** The address of a `ChainId` at an index. */
  address(chain: string, index = 0): string {
    return this.key(chain, index).address;
  }

  /** The balance of the address at `index` on `chainId`, from the chain's configured endpoint (balances.ts). */
  balance(chainId: string, index = 0, options: BalanceOptions = {}): Promise<BalanceReading> {
    const network = this.networks.get(chainId);
    return readBalance(network, this.address(network.chainId, index), options);
  }

  /** This device's sync key pair, created on first use (random per device, D-121). */
  get syncDevice(): SyncDeviceKeys {
    this.#device ??= createSyncDevice();
    return this.#device;
  }

  /** Seals the mnemonic, passphrase and sync device key under a password (Argon2id + AES-256-GCM). */
  exportKeystore(password: string, options: SealOptions = {}): Promise<KeystoreFile> {
    return sealWalletSecrets(
      password,
      {
        mnemonic: this.#mnemonic,
        ...(this.#passphrase ? { passphrase: this.#passphrase } : {}),
        ...(this.#device ? exportSyncDevice(this.#device) : {}),
      },
      { label: this.svcId, ...options },
    );
  }

  /** The mnemonic, for guardian splitting (recovery.ts) or a paper backup; handle with care. */
  revealMnemonic(): string {
    return this.#mnemonic;
  }

  /** Logs in with the key of `chain` at `index` (default the native chain, index 0). */
  login(
    client: Client,
    options: { chain?: string; index?: number } & Omit<LoginOptions, 'client' | 'identity' | 'key'> = {},
  ): Promise<Session> {
    const { chain, index, ...rest } = options;
    return login({ client, identity: this.identity, key: this.key(chain ?? '1111111', index ?? 0), ...rest });
  }

  /** Reads the fee configuration, applies it, signs on the client and broadcasts to the chain's RPC (rule 9). */
  async send(request: SendRequest): Promise<EvmSendResult | BitcoinSendResult | TronSendResult> {
    const client = request.client;
    const fees = request.fees ?? (client ? await fetchFeeConfig(() => sdk.walletGetFeeConfig({ client })) : undefined);
    if (!fees)
      throw new TypeError(
        'send needs the fee configuration: pass `client` (GET /fees/config is read before signing) or `fees`',
      );
    const network = this.networks.get(request.chainId);
    const key = this.key(network.chainId, request.index ?? 0);
    const common = {
      key,
      to: request.to,
      amount: request.amount,
      fees,
      ...(request.fetch ? { fetch: request.fetch } : {}),
      ...(request.dryRun ? { dryRun: true } : {}),
    };
    const url = this.networks.rpcUrl(network.chainId);
    switch (network.family) {
      case 'evm':
        return sendEvm({ ...common, chainId: network.chainId, rpcUrl: url });
      case 'bitcoin':
        return sendBitcoin({
          ...common,
          apiUrl: url,
          ...(request.satPerVbyte ? { satPerVbyte: request.satPerVbyte } : {}),
        });
      case 'tron':
        return sendTron({ ...common, apiUrl: url });
    }
  }
}
