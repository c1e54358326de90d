/**
 * The options page: create or import a wallet. The phrase is checked, the first EVM account derived
 * (m/44'/60'/0'/0/0), the phrase sealed under the password (keystore-web.ts) and only the sealed file and
 * public values are stored. Generating a phrase happens here, on the device. Saving also unlocks the wallet
 * view (the password was just given, D-177). The sources (sources.ts: the wallet session API that the
 * provider and the view both use, and the view's Ethereum, Bitcoin and Tron endpoints) are set here too.
 */
import {
  deriveChainKey,
  generateMnemonic,
  isValidMnemonic,
  mnemonicToSeed,
  sealKeystoreWeb,
  svcIdOfSeed,
} from '@svckit/sdk/wallet-library/browser';
import { chromeApi } from './chrome.ts';
import { readSources, saveSources } from './sources.ts';
import { DEFAULT_GATEWAY, initialState, KEYS, type WalletState } from './state.ts';
import { unlockWithSecrets } from './view-state.ts';

const chrome = chromeApi();
const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const status = (text: string) => {
  $('status').textContent = text;
};

async function show(): Promise<void> {
  const sources = await readSources();
  $<HTMLInputElement>('wallet-api-url').value = sources.walletApiUrl;
  $<HTMLInputElement>('ethereum-url').value = sources.ethereum ?? '';
  $<HTMLInputElement>('bitcoin-url').value = sources.bitcoin ?? '';
  $<HTMLInputElement>('tron-url').value = sources.tron ?? '';
  const state = (await chrome.storage.local.get(KEYS.wallet))[KEYS.wallet] as WalletState | undefined;
  $<HTMLInputElement>('gateway-url').value = state?.rpcUrls['1111111'] ?? DEFAULT_GATEWAY;
  if (!state) return;
  $('current').hidden = false;
  $('account').textContent = state.accounts[0] ?? '';
  $('svcid').textContent = state.svcId ?? '';
  $('gateway').textContent = state.rpcUrls['1111111'] ?? '';
  $('setup-title').textContent = 'Replace with another phrase';
}

$('generate').addEventListener('click', () => {
  $<HTMLTextAreaElement>('mnemonic').value = generateMnemonic(256);
  status('Write this phrase down and keep it offline: it is the only backup.');
});

$('setup').addEventListener('submit', (event) => {
  event.preventDefault();
  void save();
});

async function save(): Promise<void> {
  const mnemonic = $<HTMLTextAreaElement>('mnemonic').value.trim().toLowerCase().split(/\s+/).join(' ');
  const password = $<HTMLInputElement>('password').value;
  const gateway = $<HTMLInputElement>('gateway-url').value.trim();
  if (!isValidMnemonic(mnemonic))
    return status('That is not a valid BIP-39 phrase (a word is unknown or the checksum is wrong).');
  if (password.length < 8) return status('Choose a password of at least 8 characters.');
  try {
    if (!['https:', 'http:'].includes(new URL(gateway).protocol)) throw new Error();
  } catch {
    return status('The gateway must be an http(s) URL, for example https://localhost:8443/rpc.');
  }
  status('Sealing the phrase (Argon2id, 64 MiB)...');
  const seed = mnemonicToSeed(mnemonic);
  const account = deriveChainKey(seed, 'evm', 0);
  account.privateKey.fill(0);
  const svcId = svcIdOfSeed(seed);
  seed.fill(0);
  const keystore = await sealKeystoreWeb(password, new TextEncoder().encode(JSON.stringify({ mnemonic })), {
    label: svcId,
  });
  await chrome.storage.local.set({ [KEYS.wallet]: initialState(keystore, account.address, gateway, svcId) });
  await chrome.runtime.sendMessage({ type: 'wallet:changed' });
  status('Unlocking the wallet view...');
  await unlockWithSecrets(mnemonic);
  $<HTMLTextAreaElement>('mnemonic').value = '';
  $<HTMLInputElement>('password').value = '';
  await show();
  status(`Saved: ${account.address}`);
}

$('sources-form').addEventListener('submit', (event) => {
  event.preventDefault();
  const value = (id: string) => $<HTMLInputElement>(id).value.trim();
  saveSources({
    walletApiUrl: value('wallet-api-url'),
    ethereum: value('ethereum-url'),
    bitcoin: value('bitcoin-url'),
    tron: value('tron-url'),
  }).then(
    () => {
      $('sources-status').textContent = 'Sources saved.';
    },
    (error: unknown) => {
      $('sources-status').textContent = (error as Error).message;
    },
  );
});

void show();
