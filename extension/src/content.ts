/**
 * Content script in the extension's isolated world: relays the page provider's requests (window.postMessage,
 * tagged FROM_PAGE) to the service worker and its answers and events back (tagged TO_PAGE). It runs at
 * document_start, before the page's own scripts.
 */
import { chromeApi } from './chrome.ts';
import { EVENTS_PORT, FROM_PAGE, TO_PAGE, type RpcRequestMessage, type RpcResponseMessage } from './protocol.ts';

const chrome = chromeApi();
const target = location.origin === 'null' ? '*' : location.origin;

window.addEventListener('message', (event: MessageEvent) => {
  if (event.source !== window) return;
  const data = event.data as Partial<RpcRequestMessage> | null;
  if (data?.source !== FROM_PAGE || typeof data.id !== 'number' || typeof data.method !== 'string') return;
  const { id, method, params } = data;
  chrome.runtime.sendMessage<Omit<RpcResponseMessage, 'source' | 'id'>>({ type: 'rpc', method, params }).then(
    (answer) => window.postMessage({ source: TO_PAGE, id, ...answer }, target),
    (error: unknown) =>
      window.postMessage(
        {
          source: TO_PAGE,
          id,
          error: { code: 4900, message: `the svckit wallet is not reachable: ${(error as Error).message}` },
        },
        target,
      ),
  );
});

connect();
function connect(): void {
  const p = chrome.runtime.connect({ name: EVENTS_PORT });
  p.onMessage.addListener((message) => {
    const { event, data } = message as { event: string; data: unknown };
    window.postMessage({ source: TO_PAGE, event, data }, target);
  });
  // The service worker may be stopped when idle; reconnect so events keep flowing.
  p.onDisconnect.addListener(() => {
    setTimeout(connect, 250);
  });
}
