/**
 * The service worker: answers the pages' EIP-1193 requests through router.ts, keeps the connected origins,
 * opens approve.html for the user's decisions, forwards reads to the gateway (its /rpc) or the selected
 * chain's endpoint, and pushes accountsChanged / chainChanged to the pages' providers.
 */
import { deriveChainKey, mnemonicToSeed } from '../../src/client/wallet/keys.ts';
import { signChainMessage } from '../../src/client/wallet/sign-message.ts';
import { chromeApi, type Port } from './chrome.ts';
import { openKeystoreWeb } from './keystore-web.ts';
import { ERRORS, ProviderRpcError, type BackgroundRequest } from './protocol.ts';
import { route, type ApprovalRequest, type RouterDeps } from './router.ts';
import { KEYS, type WalletState } from './state.ts';
import { guardSigning } from './view-guard.ts';

const chrome = chromeApi();
const ports = new Map<Port, string>();
const pending = new Map<
  string,
  { request: ApprovalRequest; windowId?: number; resolve: (d: { approved: boolean; password?: string }) => void }
>();
let rpcId = 0;

const deps: RouterDeps = {
  async state() {
    return (await chrome.storage.local.get(KEYS.wallet))[KEYS.wallet] as WalletState | undefined;
  },
  async connected() {
    return ((await chrome.storage.local.get(KEYS.connected))[KEYS.connected] as string[] | undefined) ?? [];
  },
  async setConnected(origin, connected) {
    const others = (await deps.connected()).filter((o) => o !== origin);
    await chrome.storage.local.set({ [KEYS.connected]: connected ? [...others, origin] : others });
  },
  async saveState(state) {
    await chrome.storage.local.set({ [KEYS.wallet]: state });
  },
  approve(request) {
    return new Promise((resolve) => {
      const id = crypto.randomUUID();
      pending.set(id, { request, resolve });
      chrome.windows
        .create({
          url: chrome.runtime.getURL(`approve.html?id=${id}`),
          type: 'popup',
          width: 420,
          height: 560,
          focused: true,
        })
        .then((w) => {
          const entry = pending.get(id);
          if (entry && w.id !== undefined) entry.windowId = w.id;
        })
        .catch(() => settle(id, { approved: false }));
    });
  },
  async forward(url, method, params) {
    let response: Response;
    try {
      response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: ++rpcId, method, params }),
      });
    } catch (error) {
      throw new ProviderRpcError(
        ERRORS.chainDisconnected,
        `the gateway ${new URL(url).origin} cannot be reached: ${(error as Error).message}`,
      );
    }
    const body = (await response.json().catch(() => undefined)) as
      | { result?: unknown; error?: { code: number; message: string; data?: unknown } }
      | undefined;
    if (!body)
      throw new ProviderRpcError(
        ERRORS.chainDisconnected,
        `the gateway answered HTTP ${response.status} without a JSON-RPC body`,
      );
    if (body.error) throw new ProviderRpcError(body.error.code, body.error.message, body.error.data);
    return body.result;
  },
  async personalSign(state, password, index, message) {
    const secrets = JSON.parse(new TextDecoder().decode(await openKeystoreWeb(password, state.keystore))) as {
      mnemonic: string;
      passphrase?: string;
    };
    const key = deriveChainKey(mnemonicToSeed(secrets.mnemonic, secrets.passphrase ?? ''), 'evm', index);
    try {
      return signChainMessage(key, message); // EIP-191 personal_sign (D-035)
    } finally {
      key.privateKey.fill(0);
    }
  },
  emit(event, data, origin) {
    for (const [port, portOrigin] of ports) if (!origin || portOrigin === origin) port.postMessage({ event, data });
  },
};
guardSigning(deps); // D-177: nothing is signed while the wallet is locked

function settle(id: string, decision: { approved: boolean; password?: string }): void {
  const entry = pending.get(id);
  if (!entry) return;
  pending.delete(id);
  entry.resolve(decision);
}

chrome.windows.onRemoved.addListener((windowId) => {
  for (const [id, entry] of pending) if (entry.windowId === windowId) settle(id, { approved: false });
});

chrome.runtime.onConnect.addListener((port) => {
  if (port.name !== 'svckit-wallet:events' || !port.sender?.origin) return;
  ports.set(port, port.sender.origin);
  port.onDisconnect.addListener(() => ports.delete(port));
});

chrome.runtime.onMessage.addListener((raw, sender, sendResponse) => {
  const message = raw as BackgroundRequest;
  const fromExtension = sender.url?.startsWith(chrome.runtime.getURL('')) ?? false;
  if (message.type === 'rpc') {
    // The origin comes from the browser (sender.origin), never from the page.
    const origin = sender.origin ?? (sender.url ? new URL(sender.url).origin : 'null');
    route(origin, message.method, message.params, deps).then(
      (result) => sendResponse({ result: result ?? null }),
      (error: unknown) => sendResponse({ error: toRpcError(error) }),
    );
    return true;
  }
  if (!fromExtension) return false; // approvals and wallet changes come only from the extension's own pages
  if (message.type === 'approval:get') {
    sendResponse(pending.get(message.id)?.request ?? null);
    return false;
  }
  if (message.type === 'approval:decide') {
    settle(message.id, { approved: message.approved, ...(message.password ? { password: message.password } : {}) });
    sendResponse(true);
    return false;
  }
  if (message.type === 'wallet:changed') {
    // Only connected origins learn the (new) account.
    void Promise.all([deps.state(), deps.connected()]).then(([state, origins]) => {
      for (const origin of origins) deps.emit('accountsChanged', state ? state.accounts.slice(0, 1) : [], origin);
    });
    sendResponse(true);
  }
  return false;
});

function toRpcError(error: unknown): { code: number; message: string; data?: unknown } {
  if (error instanceof ProviderRpcError)
    return { code: error.code, message: error.message, ...(error.data !== undefined ? { data: error.data } : {}) };
  return { code: ERRORS.internal, message: error instanceof Error ? error.message : String(error) };
}
