// The in-process reference target builds the browser extension it serves: on a checkout where `npm start`
// never ran (no dist/extension), `svckit conformance` still passes wallet.download.signed_zip.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { walletChecks } from '../../conformance/checks/wallet/index.ts';
import { referenceTarget } from '../../conformance/targets/reference.ts';
import type { Target } from '../../conformance/targets/target.ts';
import { nonPasses, runGroup } from '../wallet/support.ts';

let target: Target;
const cwd = process.cwd();
beforeAll(async () => {
  // The default extension directory resolves from the working directory: run where none was ever built.
  process.chdir(path.join(cwd, 'test'));
  expect(existsSync('dist/extension/manifest.json')).toBe(false);
  target = await referenceTarget();
});
afterAll(async () => {
  await target?.close?.();
  process.chdir(cwd);
});

describe('the in-process reference target', () => {
  it('serves the signed extension package it built, with no dist/extension in the working directory', async () => {
    const check = walletChecks().filter((c) => c.id === 'wallet.download.signed_zip');
    expect(check).toHaveLength(1);
    const results = await runGroup(target, check);
    expect(nonPasses(results)).toEqual([]);
    expect(results[0]!.status).toBe('passed');
  });
});
