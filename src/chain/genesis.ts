/**
 * The genesis account of the embedded chain: Anvil's first development account, funded at genesis. Its key
 * is public (Anvil's documented test mnemonic), which is fine for a local development chain only: the admin
 * console funds accounts from it (D-061), and CHAIN_RPC_URL deployments never use it.
 */
import { privateKeyToAccount } from 'viem/accounts';

/** Anvil development account #0 ("test test … junk", m/44'/60'/0'/0/0). */
export const genesisAccount = privateKeyToAccount('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');
