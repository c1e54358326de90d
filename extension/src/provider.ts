/**
 * The EIP-1193 provider the page sees. It sends every request through a transport (window.postMessage to the
 * content script in the extension; anything in tests) and re-emits the wallet's events.
 */
import { ProviderRpcError, type RpcErrorShape } from './protocol.ts';

/** EIP-1193 request arguments. */
export interface RequestArguments {
  readonly method: string;
  readonly params?: readonly unknown[] | object;
}

/** How the provider reaches the wallet. */
export interface ProviderTransport {
  send(method: string, params: unknown): Promise<unknown>;
}

type Listener = (...args: unknown[]) => void;

/** EIP-1193 provider: request(), on(), removeListener(); events connect, disconnect, chainChanged, accountsChanged. */
export class SvckitProvider {
  /** Brand flags some dApps read; no `isMetaMask`, so it is never mistaken for another wallet. */
  readonly isSvckit = true;
  readonly #listeners = new Map<string, Set<Listener>>();
  readonly #transport: ProviderTransport;
  #chainId: string | undefined;

  /** A provider over `transport`. */
  constructor(transport: ProviderTransport) {
    this.#transport = transport;
  }

  /** EIP-1193 request: resolves with the result or rejects with a ProviderRpcError. */
  async request(args: RequestArguments): Promise<unknown> {
    if (!args || typeof args !== 'object' || typeof args.method !== 'string')
      throw new ProviderRpcError(-32602, 'request expected {method, params?}');
    if (args.params !== undefined && (typeof args.params !== 'object' || args.params === null))
      throw new ProviderRpcError(-32602, `${args.method} params expected an array or an object (EIP-1193)`);
    const result = await this.#transport.send(args.method, args.params);
    if (args.method === 'eth_chainId' && typeof result === 'string' && this.#chainId === undefined) {
      this.#chainId = result;
      this.emit('connect', { chainId: result });
    }
    return result;
  }

  /** Adds a listener (EIP-1193 / Node EventEmitter style). */
  on(event: string, listener: Listener): this {
    let set = this.#listeners.get(event);
    if (!set) {
      set = new Set();
      this.#listeners.set(event, set);
    }
    set.add(listener);
    return this;
  }

  /** Removes a listener. */
  removeListener(event: string, listener: Listener): this {
    this.#listeners.get(event)?.delete(listener);
    return this;
  }

  /** Delivers an event from the wallet to the page's listeners. */
  emit(event: string, ...args: unknown[]): boolean {
    if (event === 'chainChanged' && typeof args[0] === 'string') this.#chainId = args[0];
    // EIP-1193: `disconnect` carries a ProviderRpcError.
    if (event === 'disconnect' && args[0] && !(args[0] instanceof ProviderRpcError)) {
      const { code, message } = args[0] as RpcErrorShape;
      args = [new ProviderRpcError(code ?? 4900, message ?? 'disconnected')];
    }
    const set = this.#listeners.get(event);
    for (const listener of set ?? []) {
      try {
        listener(...args);
      } catch (error) {
        console.error(error);
      }
    }
    return (set?.size ?? 0) > 0;
  }
}

/** The Error a page sees for an RPC error answer. */
export function toProviderError(error: RpcErrorShape): ProviderRpcError {
  return new ProviderRpcError(error.code, error.message, error.data);
}
