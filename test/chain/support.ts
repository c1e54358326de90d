// The reference stack on real TLS and real embedded Anvil, with the node's own URL beside the gateway's, so a
// test can compare what the gateway answers with what Anvil answers directly (and set state on Anvil, such as
// anvil_setStorageAt, without going through the gateway).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { loadConfig } from '../../src/config.ts';
import type { Stack } from '../../src/server/app.ts';
import { listen } from '../../src/server/main.ts';

/** A JSON-RPC answer as it comes off the wire. */
export type RpcAnswer = {
  jsonrpc: string;
  id: unknown;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
};

/** A running gateway: its /rpc URL, the Anvil node behind it, and how to seal a block or stop. */
export type Gateway = { rpc: string; anvil: string; stack: Stack; close(): Promise<void> };

/** Starts the stack (PGlite, embedded Anvil, instant mining) and trusts its development CA in this process. */
export async function startGateway(): Promise<Gateway> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'svckit-rpc-'));
  const config = loadConfig({
    SVC_DATA_DIR: dataDir,
    SVC_BASE_PORT: '0',
    SVC_WALLET_PORT: '0',
    SVC_SITE_PORT: '0',
    SVC_BLOCK_TIME: '0',
    SVC_RATE_LIMIT_RPC: '0',
  });
  const { stack, ready } = await listen(config, { logLevel: 'silent' });
  // vitest runs each file in its own process, so the extra trusted CA does not leak into other files.
  tls.setDefaultCACertificates([...tls.getCACertificates('default'), stack.tls.caCert]);
  return {
    rpc: `${ready.base}/rpc`,
    anvil: stack.chain.upstream.url,
    stack,
    close: async () => {
      await stack.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Posts one JSON-RPC request (or any JSON body) to `url` and returns the parsed answer. */
export async function post(url: string, body: unknown): Promise<RpcAnswer> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return (await response.json()) as RpcAnswer;
}

/** Calls `method` at `url` with positional params. */
export const call = (url: string, method: string, params: unknown[]) =>
  post(url, { jsonrpc: '2.0', id: 1, method, params });
