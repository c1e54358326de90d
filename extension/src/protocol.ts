/**
 * Messages between the extension's parts. The page's provider (inpage.ts, MAIN world) talks to the content
 * script (content.ts, isolated world) with window.postMessage; the content script talks to the service worker
 * (background.ts) with chrome.runtime messages and a port for events. EIP-1193 shapes throughout.
 */

/** Tag of messages from the page's provider to the content script. */
export const FROM_PAGE = 'svckit-wallet:page';
/** Tag of messages from the content script to the page's provider. */
export const TO_PAGE = 'svckit-wallet:content';
/** Name of the port the content script opens for provider events. */
export const EVENTS_PORT = 'svckit-wallet:events';

/** An EIP-1193 request as relayed. */
export interface RpcRequestMessage {
  source: typeof FROM_PAGE;
  id: number;
  method: string;
  params?: unknown;
}

/** EIP-1193 ProviderRpcError fields. */
export interface RpcErrorShape {
  code: number;
  message: string;
  data?: unknown;
}

/** The answer to one request. */
export interface RpcResponseMessage {
  source: typeof TO_PAGE;
  id: number;
  result?: unknown;
  error?: RpcErrorShape;
}

/** A provider event pushed to the page (accountsChanged, chainChanged, connect, disconnect). */
export interface ProviderEventMessage {
  source: typeof TO_PAGE;
  event: 'accountsChanged' | 'chainChanged' | 'connect' | 'disconnect';
  data: unknown;
}

/** Runtime messages the service worker handles. */
export type BackgroundRequest =
  | { type: 'rpc'; method: string; params?: unknown }
  | { type: 'approval:get'; id: string }
  | { type: 'approval:decide'; id: string; approved: boolean; password?: string }
  | { type: 'wallet:changed' };

/** EIP-1193 and EIP-1474 error codes the wallet answers with. */
export const ERRORS = Object.freeze({
  userRejected: 4001,
  unauthorized: 4100,
  unsupportedMethod: 4200,
  disconnected: 4900,
  chainDisconnected: 4901,
  unrecognizedChain: 4902,
  invalidParams: -32602,
  limitExceeded: -32005,
  internal: -32603,
});

/** An Error carrying an EIP-1193 code. */
export class ProviderRpcError extends Error {
  /** `code` and `data` per EIP-1193 ProviderRpcError. */
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}
