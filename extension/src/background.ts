/**
 * The service worker: answers the pages' EIP-1193 requests through router.ts, keeps the connected origins,
 * opens approve.html for the user's decisions, forwards reads to the gateway (its /rpc) or the selected
 * chain's endpoint, and pushes accountsChanged / chainChanged to the pages' providers.
 */
import { mnemonicToSeed, openKeystoreWeb } from '@svckit/sdk/wallet-library/browser';
import type { ApprovalDecision } from './approval.ts';
import { chromeApi, type Port } from './chrome.ts';
import { ERRORS, ProviderRpcError, type BackgroundRequest } from './protocol.ts';
import { route, type ApprovalRequest, type RouterDeps } from './router.ts';
import { readSources } from './sources.ts';
import { KEYS, type WalletState } from './state.ts';
import { guardSigning } from './view-guard.ts';

const chrome = chromeApi();
const ports = new Map<Port, string>();
const pending = new Map<
  string,
  { request: ApprovalRequest; windowId?: number; resolve: (d: ApprovalDecision) => void }
>();
let rpcId = 0;
/** Approval windows one origin may have open at once. */
const MAX_PENDING_PER_ORIGIN = 4;
/** Bytes read of a chain endpoint's answer (eth_getLogs can be large) and of the wallet service's. */
const MAX_RPC_RESPONSE = 16 * 1024 * 1024;
const MAX_WALLET_API_RESPONSE = 1024 * 1024;

/** The JSON body of a response, read up to `max` bytes; undefined when it is not JSON; -32005 when larger. */
async function readJson(response: Response, max: number): Promise<unknown> {
  const reader = response.body?.getReader();
  if (!reader) return undefined;
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > max) {
      await reader.cancel();
      throw new ProviderRpcError(
        ERRORS.limitExceeded,
        `${new URL(response.url).origin} answered more than ${max} bytes`,
      );
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.length;
  }
  try {
    return JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return undefined;
  }
}

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
    // EIP-1474 -32005: a page cannot stack up approval windows.
    const open = [...pending.values()].filter((p) => p.request.origin === request.origin).length;
    if (open >= MAX_PENDING_PER_ORIGIN)
      return Promise.reject(
        new ProviderRpcError(
          ERRORS.limitExceeded,
          `${open} requests of this site are already waiting for the user; answer them first`,
        ),
      );
    return new Promise((resolve) => {
      const id = crypto.randomUUID();
      pending.set(id, { request, resolve });
      chrome.windows
        .create({
          url: chrome.runtime.getURL(`approve.html?id=${id}`),
          type: 'popup',
          width: 420,
          height: 640,
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
    const body = (await readJson(response, MAX_RPC_RESPONSE)) as
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
  async withSeed(state, password, use) {
    let opened: Uint8Array;
    try {
      opened = await openKeystoreWeb(password, state.keystore);
    } catch {
      throw new ProviderRpcError(ERRORS.unauthorized, 'the keystore did not open: wrong password');
    }
    const secrets = JSON.parse(new TextDecoder().decode(opened)) as { mnemonic: string; passphrase?: string };
    opened.fill(0);
    const seed = mnemonicToSeed(secrets.mnemonic, secrets.passphrase ?? '');
    try {
      return await use(seed);
    } finally {
      seed.fill(0);
    }
  },
  async walletApiUrl() {
    return (await readSources()).walletApiUrl;
  },
  async walletApi(url, body) {
    let response: Response;
    try {
      response = await fetch(url, {
        method: body === undefined ? 'GET' : 'POST',
        headers: body === undefined ? { accept: 'application/json' } : { 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    } catch (error) {
      throw new ProviderRpcError(
        ERRORS.disconnected,
        `the wallet service ${new URL(url).origin} cannot be reached: ${(error as Error).message}`,
      );
    }
    return { status: response.status, body: (await readJson(response, MAX_WALLET_API_RESPONSE)) ?? null };
  },
  emit(event, data, origin) {
    for (const [port, portOrigin] of ports) if (!origin || portOrigin === origin) port.postMessage({ event, data });
  },
};
guardSigning(deps); // D-177: nothing is signed while the wallet is locked

function settle(id: string, decision: ApprovalDecision): void {
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
