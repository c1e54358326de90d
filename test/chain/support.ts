// The reference stack on real TLS and real embedded Anvil, with the node's own URL beside the gateway's, so a
// test can compare what the gateway answers with what Anvil answers directly (and set state on Anvil, such as
// anvil_setStorageAt, without going through the gateway).
import type { Stack } from '../../src/server/app.ts';
import { startTestStack } from '../support/stack.ts';

/** A JSON-RPC answer as it comes off the wire. */
export type RpcAnswer = {
  jsonrpc: string;
  id: unknown;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
};

/** A running gateway: its /rpc URL, the Anvil node behind it, and how to seal a block or stop. */
export type Gateway = { rpc: string; anvil: string; stack: Stack; close(): Promise<void> };

/**
 * Starts the stack (test/support/stack.ts: PGlite, embedded Anvil, instant mining; the /rpc limit lifted) and
 * trusts its development CA in this process.
 */
export async function startGateway(): Promise<Gateway> {
  const started = await startTestStack({ env: { SVC_RATE_LIMIT_RPC: '0' }, trustCa: true });
  return {
    rpc: `${started.ready.base}/rpc`,
    anvil: started.stack.chain.upstream.url,
    stack: started.stack,
    close: started.close,
  };
}

/** Posts one JSON-RPC request (or any JSON body) to `url` and returns the parsed answer. */
export async function post(url: string, body: unknown): Promise<RpcAnswer> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  try {
    return JSON.parse(text) as RpcAnswer;
  } catch {
    throw new Error(`HTTP ${response.status} from ${url} carried no JSON answer: ${text.slice(0, 200)}`);
  }
}

/** Calls `method` at `url` with positional params. */
export const call = (url: string, method: string, params: unknown[]) =>
  post(url, { jsonrpc: '2.0', id: 1, method, params });
