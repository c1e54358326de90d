/**
 * The in-process reference stack as a target (DESIGN.md: "The default target is an in-process reference
 * stack"): a fresh data directory, ephemeral ports, instant mining, real TLS, real Anvil and PGlite.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config.ts';
import { OffsetClock } from '../../src/clock.ts';
import { listen } from '../../src/server/main.ts';
import type { Target } from './target.ts';

/** Starts the stack and returns it as a target; call `close()` when done. */
export async function referenceTarget(options: { env?: Record<string, string> } = {}): Promise<Target> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'svckit-ref-'));
  const config = loadConfig({
    SVC_DATA_DIR: dataDir,
    SVC_BASE_PORT: '0',
    SVC_WALLET_PORT: '0',
    SVC_SITE_PORT: '0',
    SVC_BLOCK_TIME: '0',
    ...options.env,
  });
  const clock = new OffsetClock();
  const { stack, ready } = await listen(config, { clock, logLevel: 'silent' });
  return {
    kind: 'reference',
    base: new URL(`${ready.base}/`),
    wallet: new URL(`${ready.wallet}/`),
    site: new URL(`${ready.site}/`),
    caCert: stack.tls.caCert,
    capabilities: new Set(['specs', 'base', 'wallet', 'site', 'admin', 'reference']),
    ...(ready.adminToken ? { adminToken: ready.adminToken } : {}),
    reference: {
      advanceClock: (ms) => clock.advance(ms),
      mineBlock: async () => {
        await stack.chain.producer?.requestBlock();
      },
    },
    close: async () => {
      await stack.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
