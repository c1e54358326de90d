// An in-process reference stack whose internals stay reachable (the chain node, the funding account), with
// a Target for the HTTPS helpers of support.ts: for tests that must put the node in a state no API reaches.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Target } from '../../conformance/targets/target.ts';
import { loadConfig } from '../../src/config.ts';
import type { Stack } from '../../src/server/app.ts';
import { listen } from '../../src/server/main.ts';

/** A running stack, its target and how to stop both. */
export type OpenStack = { stack: Stack; target: Target; close(): Promise<void> };

/**
 * Starts a stack (ports 0, instant mining, rate limits lifted) and returns it with its Target: in memory, or
 * persisted in `persistIn` (kept on close, so that another stack can start on it); its log at `logLevel`.
 */
export async function openStack(
  env: Record<string, string> = {},
  persistIn?: string,
  logLevel = 'silent',
): Promise<OpenStack> {
  const dataDir = persistIn ?? mkdtempSync(path.join(tmpdir(), 'svckit-admin-'));
  const config = loadConfig({
    SVC_DATA_DIR: dataDir,
    SVC_BASE_PORT: '0',
    SVC_WALLET_PORT: '0',
    SVC_SITE_PORT: '0',
    SVC_BLOCK_TIME: '0',
    SVC_RATE_LIMIT: '0',
    SVC_RATE_LIMIT_RPC: '0',
    SVC_RATE_LIMIT_EXPLORER: '0',
    SVC_RATE_LIMIT_ADMIN: '0',
    ...env,
  });
  const { stack, ready } = await listen(config, { logLevel, persist: persistIn !== undefined });
  const target: Target = {
    kind: 'reference',
    base: new URL(`${ready.base}/`),
    wallet: new URL(`${ready.wallet}/`),
    site: new URL(`${ready.site}/`),
    caCert: stack.tls.caCert,
    capabilities: new Set(['specs', 'base', 'wallet', 'site', 'admin']),
    // A restart on a kept data directory prints no token: the caller carries the first one over.
    ...(ready.adminToken ? { adminToken: ready.adminToken } : {}),
  };
  let closed = false;
  return {
    stack,
    target,
    close: async () => {
      if (!closed) await stack.close();
      closed = true;
      if (!persistIn) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
