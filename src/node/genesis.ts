/**
 * The funding account of the embedded chain (D-151): derived (m/44'/60'/0'/0/0) from a BIP-39 mnemonic drawn
 * at random on the first start of a data directory and kept sealed under the KEK (D-148). Anvil never holds
 * it: it runs with no development accounts of its own, and this account is credited on the fresh chain
 * instead. Spec: writes require "a funded account on the permissioned chain"; the key never leaves the server.
 */
import { english, generateMnemonic, mnemonicToAccount, type HDAccount } from 'viem/accounts';
import type { Keyring } from '../ledger/keyring.ts';
import type { Database } from '../storage/database.ts';
import { chainMnemonic } from '../storage/settings.ts';

/** D-151: what the funding account holds on a fresh chain, 10^9 units (18 decimals), enough for demos and benchmarks. */
export const FUNDING_BALANCE_WEI = 10n ** 9n * 10n ** 18n;

/** The data directory's funding account: its mnemonic is created on first start and read back afterwards. */
export async function fundingAccount(db: Database, keyring: Keyring): Promise<HDAccount> {
  return mnemonicToAccount(await chainMnemonic(db, keyring, () => generateMnemonic(english, 256)));
}
