// D-227: two tiers. Every test file outside test/cluster is in exactly one of them (the full tier is the list in
// test/tiers.ts, `npm test` is every other file), every entry of the list names a file, each surface keeps an
// end-to-end pass against a real stack in `npm test`, and the scripts run the tiers they say they run.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../src/paths.ts';
import { FULL_TIER, OWN_PROCESS, SURFACE_END_TO_END } from '../tiers.ts';

/** Every *.test.ts under test/, relative to the repository root. */
function testFiles(dir = 'test'): string[] {
  return readdirSync(path.join(REPO_ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const relative = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return testFiles(relative);
    return entry.name.endsWith('.test.ts') ? [relative] : [];
  });
}

const scripts: Record<string, string> = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')).scripts;

describe('the test tiers', () => {
  it('every entry of the full tier names an existing test file outside test/cluster', () => {
    for (const file of Object.keys(FULL_TIER)) {
      expect(existsSync(path.join(REPO_ROOT, file)), file).toBe(true);
      expect(file, file).toMatch(/^test\/(?!cluster\/).+\.test\.ts$/);
    }
  });

  it('a fast-tier file that mocks a module runs in a process of its own', () => {
    for (const file of testFiles()) {
      if (file.startsWith('test/cluster/') || file in FULL_TIER) continue;
      const mocks = /\bvi\.(do)?[mM]ock\(/.test(readFileSync(path.join(REPO_ROOT, file), 'utf8'));
      expect(OWN_PROCESS.includes(file), `${file} mocks a module: ${mocks}`).toBe(mocks);
    }
  });

  it('npm test keeps an end-to-end pass of every surface, each on a real stack', () => {
    expect(Object.keys(SURFACE_END_TO_END).map((surface) => surface[0])).toEqual(['A', 'B', 'C', 'D', 'E', 'F']);
    const fast = new Set(testFiles().filter((file) => !file.startsWith('test/cluster/') && !(file in FULL_TIER)));
    for (const [surface, file] of Object.entries(SURFACE_END_TO_END)) {
      expect(fast.has(file), `${surface}: ${file} runs in npm test`).toBe(true);
      // A real stack: the harness's in-process reference (its own or the worker's shared one) or the test stack
      // helper, all real TLS, Anvil, PGlite.
      expect(readFileSync(path.join(REPO_ROOT, file), 'utf8'), file).toMatch(/[rR]eferenceTarget\(|startTestStack\(/);
    }
  });

  it('npm test runs the fast tier, test:all the full tier, and .ci/run both and the stress run', () => {
    expect(scripts.test).toMatch(/vitest run --project fast --project fast-own-process$/);
    expect(readFileSync(path.join(REPO_ROOT, 'scripts/test-stress.js'), 'utf8')).toContain(
      "'--project', 'fast', '--project', 'fast-own-process'",
    );
    expect(scripts['test:all']).toMatch(/scripts\/test-all\.sh/);
    expect(readFileSync(path.join(REPO_ROOT, 'scripts/test-all.sh'), 'utf8')).toMatch(/vitest run --project full/);
    const ci = readFileSync(path.join(REPO_ROOT, '.ci/run'), 'utf8');
    for (const command of ['npm ci && npm test', 'npm run -s test:stress', 'npm run -s test:all']) {
      expect(ci, command).toContain(command);
    }
  });
});
