/**
 * The wallet view (wallet.html: the toolbar popup, also openable as a tab; D-177): the accounts per chain
 * with their balances, the native account's recent activity from GET /history, and lock / unlock with the
 * keystore password. While locked nothing of the wallet but its existence is shown.
 */
import {
  BUILTIN_NETWORKS,
  formatUnits,
  KeystoreError,
  type BalanceReading,
  type HistoryItem,
  type HistoryResponse,
} from '@svckit/sdk/wallet-library/browser';
import { chromeApi } from './chrome.ts';
import { KEYS, type WalletState } from './state.ts';
import { HISTORY_SHOWN, readBalances, readHistory, viewNetworks, addressOf } from './view-data.ts';
import { lock, readSources, readUnlocked, unlockWithPassword, VIEW_KEYS, type Unlocked } from './view-state.ts';

const chrome = chromeApi();
/** Re-renders when the unlocked session runs out (UNLOCK_MS), so the view locks itself on screen too. */
let autoLock: ReturnType<typeof setTimeout> | undefined;
/** Counts state changes, so answers that arrive after a lock or a newer render are dropped. */
let generation = 0;
const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const status = (text: string) => {
  $('status').textContent = text;
};

/** An element with text content and optional class. */
function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  text?: string,
  className?: string,
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  if (className) node.className = className;
  return node;
}

async function walletState(): Promise<WalletState | undefined> {
  return (await chrome.storage.local.get(KEYS.wallet))[KEYS.wallet] as WalletState | undefined;
}

/** Shows exactly one of the three states. */
function showPart(part: 'not-set-up' | 'locked' | 'unlocked'): void {
  generation++;
  for (const id of ['not-set-up', 'locked', 'unlocked']) $(id).hidden = id !== part;
  $('lock-state').textContent = part === 'unlocked' ? 'Unlocked' : part === 'locked' ? 'Locked' : 'Not set up';
  $('lock-state').dataset.state = part;
  if (part !== 'unlocked') {
    // Nothing of an earlier unlocked view may linger in the document.
    $('accounts').replaceChildren();
    $('history').replaceChildren();
    $('history-note').textContent = '';
    $('svcid').textContent = '';
  }
}

async function render(): Promise<void> {
  const state = await walletState();
  if (!state) return showPart('not-set-up');
  const unlocked = await readUnlocked();
  if (!unlocked) return showPart('locked');
  showPart('unlocked');
  clearTimeout(autoLock);
  autoLock = setTimeout(() => void render(), unlocked.until - Date.now() + 100);
  await renderUnlocked(state, unlocked);
}

async function renderUnlocked(state: WalletState, unlocked: Unlocked): Promise<void> {
  const sources = await readSources();
  const networks = viewNetworks(state, sources);
  $('svcid').textContent = unlocked.svcId;
  const cards = new Map<string, HTMLElement>();
  $('accounts').replaceChildren(
    ...networks.map((network) => {
      const card = el('li');
      card.dataset.chain = network.chainId;
      const title = el('h3', network.name);
      const address = el('p', addressOf(network, unlocked), 'mono address');
      const balance = el('p', 'Reading the balance…', 'balance');
      balance.dataset.status = 'loading';
      card.append(title, address, balance);
      cards.set(network.chainId, balance);
      return card;
    }),
  );
  status('Reading balances and activity…');
  const mine = generation;
  await Promise.all([
    readBalances(networks, unlocked, (reading) => showBalance(cards.get(reading.chainId)!, reading)),
    readHistory(sources, unlocked).then((answer) => {
      if (mine !== generation) return; // locked or re-rendered meanwhile: show nothing of this answer
      if ('feed' in answer) showHistory(answer.feed);
      else showHistoryError(answer.error);
    }),
  ]);
  if (mine === generation) status(`Updated at ${new Date().toLocaleTimeString()}.`);
}

function showBalance(node: HTMLElement, reading: BalanceReading): void {
  node.dataset.status = reading.status;
  if (reading.status === 'available') {
    node.textContent = `${formatUnits(reading.value, reading.decimals)} ${reading.symbol}`;
    node.title = `${reading.value} base units, from ${reading.source}`;
  } else {
    // Never a made-up number: say why there is none.
    node.textContent = `Balance unavailable: ${reading.reason}`;
    node.classList.add('error');
  }
}

function showHistory(feed: HistoryResponse): void {
  const unavailable = feed.sources.filter((s) => s.status === 'unavailable');
  const notes = unavailable.map((s) => `${s.name} unavailable: ${s.error ?? 'no detail'}`);
  if (feed.items.length === 0) notes.unshift('No activity yet.');
  $('history-note').textContent = notes.join(' ');
  $('history').replaceChildren(...feed.items.slice(0, HISTORY_SHOWN).map(historyEntry));
}

function historyEntry(item: HistoryItem): HTMLElement {
  const network = BUILTIN_NETWORKS.find((n) => n.chainId === item.chainId);
  const amount = `${formatUnits(BigInt(item.value), network?.decimals ?? 18)} ${item.asset}`;
  const entry = el('li');
  entry.dataset.tx = item.txHash;
  const what = el('p');
  what.append(el('strong', `${item.direction === 'in' ? 'Received' : 'Sent'} ${amount}`), ` · ${item.status}`);
  const party = item.direction === 'in' ? item.from : item.to;
  const who = el('p', `${item.direction === 'in' ? 'From' : 'To'} ${party ?? '(none)'}`, 'mono');
  const hash = el('p', `Transaction ${item.txHash}`, 'mono');
  const when = el(
    'p',
    item.timestamp === null
      ? 'Pending'
      : `${new Date(item.timestamp * 1000).toLocaleString()} · block ${item.blockNumber}`,
    'note',
  );
  entry.append(what, who, hash, when);
  return entry;
}

function showHistoryError(error: string): void {
  $('history').replaceChildren();
  $('history-note').textContent = `Activity unavailable: ${error}`;
}

$('unlock-form').addEventListener('submit', (event) => {
  event.preventDefault();
  void unlock();
});

async function unlock(): Promise<void> {
  const input = $<HTMLInputElement>('unlock-password');
  const state = await walletState();
  if (!state) return showPart('not-set-up');
  $('unlock-error').textContent = '';
  input.removeAttribute('aria-invalid');
  $<HTMLButtonElement>('unlock').disabled = true;
  status('Unlocking (Argon2id, 64 MiB)…');
  try {
    await unlockWithPassword(input.value, state.keystore);
    input.value = '';
    status('Unlocked.');
    await render();
    $('refresh').focus();
  } catch (error) {
    const wrong = error instanceof KeystoreError && error.code === 'WRONG_PASSWORD_OR_TAMPERED';
    $('unlock-error').textContent = wrong
      ? 'Wrong password: the wallet stays locked.'
      : `Could not unlock: ${(error as Error).message}`;
    input.setAttribute('aria-invalid', 'true');
    status('Still locked.');
    input.select();
    input.focus();
  } finally {
    $<HTMLButtonElement>('unlock').disabled = false;
  }
}

$('lock').addEventListener('click', () => {
  void lock().then(async () => {
    await render();
    status('Locked. Addresses and balances are hidden; signing is refused until you unlock.');
    $('unlock-password').focus();
  });
});

$('refresh').addEventListener('click', () => {
  void render();
});

// Another page (the options page, another view) may replace the wallet or lock it.
chrome.storage.onChanged.addListener((changes, area) => {
  if (area === 'local' && KEYS.wallet in changes) void render();
  if (area === 'session' && VIEW_KEYS.unlocked in changes && changes[VIEW_KEYS.unlocked]?.newValue === undefined)
    void render();
});

void render();
