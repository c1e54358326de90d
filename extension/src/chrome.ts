/**
 * The few chrome.* extension APIs the wallet uses, typed here (no @types/chrome in the project). Only the
 * members called are declared; see developer.chrome.com/docs/extensions/reference.
 */

/** A message sender as chrome.runtime reports it. */
export interface MessageSender {
  /** Origin of the page the content script runs in (set by the browser, not by the page). */
  origin?: string;
  url?: string;
  tab?: { id?: number };
}

/** A long-lived connection. */
export interface Port {
  name: string;
  sender?: MessageSender;
  postMessage(message: unknown): void;
  onMessage: { addListener(fn: (message: unknown) => void): void };
  onDisconnect: { addListener(fn: () => void): void };
}

/** The subset of the chrome namespace used. */
export interface ChromeApi {
  runtime: {
    id: string;
    getURL(path: string): string;
    sendMessage<T = unknown>(message: unknown): Promise<T>;
    connect(info: { name: string }): Port;
    openOptionsPage(): Promise<void>;
    onMessage: {
      addListener(
        fn: (message: unknown, sender: MessageSender, sendResponse: (response: unknown) => void) => boolean | undefined,
      ): void;
    };
    onConnect: { addListener(fn: (port: Port) => void): void };
  };
  storage: {
    local: {
      get(keys: string[] | string): Promise<Record<string, unknown>>;
      set(items: Record<string, unknown>): Promise<void>;
    };
    onChanged: {
      addListener(
        fn: (changes: Record<string, { newValue?: unknown; oldValue?: unknown }>, area: string) => void,
      ): void;
    };
  };
  windows: {
    create(options: {
      url: string;
      type: 'popup';
      width: number;
      height: number;
      focused?: boolean;
    }): Promise<{ id?: number }>;
    onRemoved: { addListener(fn: (windowId: number) => void): void };
  };
}

/** The extension's chrome namespace (throws outside an extension context). */
export function chromeApi(): ChromeApi {
  const api = (globalThis as { chrome?: ChromeApi }).chrome;
  if (!api?.runtime) throw new Error('not running inside the extension');
  return api;
}
