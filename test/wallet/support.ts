// Shared setup of the wallet session API tests (surface E): the in-process reference stack with wallet
// settings from the environment, a loopback port nothing listens on (an unreachable source without the
// network), a built-extension fixture, and a runner for a group of `wallet.*` checks.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Catalogue, type Check } from '../../conformance/catalogue.ts';
import { runChecks, type CheckResult } from '../../conformance/runner.ts';
import { referenceTarget } from '../../conformance/targets/reference.ts';
import type { Target } from '../../conformance/targets/target.ts';

/** Starts the reference stack; `wallet` are SVC_WALLET_* / SVC_RATE_LIMIT_WALLET* settings (src/config.ts). */
export async function startTarget(wallet: Record<string, string> = {}): Promise<Target> {
  return referenceTarget({ env: wallet });
}

/** A loopback URL on a port that was free a moment ago: connecting is refused, no network involved. */
export async function refusedUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

/** A minimal Manifest V3 directory standing in for the client build's `dist/extension` (test fixture only). */
export function extensionFixture(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'svckit-ext-'));
  mkdirSync(path.join(dir, 'scripts'));
  writeFileSync(
    path.join(dir, 'manifest.json'),
    JSON.stringify({
      manifest_version: 3,
      name: 'svckit wallet (fixture)',
      version: '0.1.0',
      content_scripts: [{ matches: ['<all_urls>'], js: ['scripts/inject.js'] }],
    }),
  );
  writeFileSync(path.join(dir, 'scripts', 'inject.js'), '// fixture\n'.repeat(50));
  return dir;
}

/** Runs `checks` against `target`. */
export async function runGroup(target: Target, checks: Check[]): Promise<CheckResult[]> {
  const catalogue = new Catalogue();
  for (const check of checks) catalogue.register(check);
  return runChecks(catalogue, target);
}

/** `id: status: reason` of every result that did not pass. */
export const nonPasses = (results: CheckResult[]) =>
  results.filter((r) => r.status !== 'passed').map((r) => `${r.id}: ${r.status}: ${r.reason}`);
