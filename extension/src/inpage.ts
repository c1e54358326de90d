/**
 * Runs in the page's MAIN world at document_start: creates the EIP-1193 provider and announces it through
 * EIP-6963 (`eip6963:announceProvider`, again on every `eip6963:requestProvider`), so it coexists with any
 * other wallet. window.ethereum is set only when no other wallet has set it, and stays replaceable.
 */
import { FROM_PAGE, TO_PAGE, type ProviderEventMessage, type RpcResponseMessage } from './protocol.ts';
import { SvckitProvider, toProviderError } from './provider.ts';

/** EIP-6963 reverse-DNS id of the wallet (D-126). */
export const RDNS = 'dev.svckit.wallet';

const ICON =
  'data:image/svg+xml;base64,' +
  btoa(
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 96 96"><rect width="96" height="96" rx="20" fill="#0b3d2e"/><path d="M28 62c6 6 34 6 38-4s-34-10-34-22 30-12 36-4" fill="none" stroke="#7be0b5" stroke-width="8" stroke-linecap="round"/></svg>',
  );

const target = location.origin === 'null' ? '*' : location.origin;
const waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: unknown) => void }>();
let nextId = 1;

const provider = new SvckitProvider({
  send(method, params) {
    const id = nextId++;
    return new Promise((resolve, reject) => {
      waiting.set(id, { resolve, reject });
      window.postMessage({ source: FROM_PAGE, id, method, params }, target);
    });
  },
});

window.addEventListener('message', (event: MessageEvent) => {
  if (event.source !== window) return;
  const data = event.data as Partial<RpcResponseMessage & ProviderEventMessage> | null;
  if (data?.source !== TO_PAGE) return;
  if (typeof data.id === 'number') {
    const entry = waiting.get(data.id);
    if (!entry) return;
    waiting.delete(data.id);
    if (data.error) entry.reject(toProviderError(data.error));
    else entry.resolve(data.result);
  } else if (typeof data.event === 'string') {
    provider.emit(data.event, data.data);
  }
});

const info = Object.freeze({ uuid: crypto.randomUUID(), name: 'svckit wallet', icon: ICON, rdns: RDNS });
const detail = Object.freeze({ info, provider });
const announce = () => window.dispatchEvent(new CustomEvent('eip6963:announceProvider', { detail }));
window.addEventListener('eip6963:requestProvider', announce);
announce();

if (!('ethereum' in window)) {
  Object.defineProperty(window, 'ethereum', { value: provider, writable: true, configurable: true, enumerable: true });
}
