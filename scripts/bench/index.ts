/**
 * `npm run bench -- <name> [--json <file>]`: runs one benchmark from scripts/bench/<name>.ts and prints its
 * figures (and writes them as JSON, result.ts). `npm run bench -- all [--out <folder>]` runs every benchmark
 * one after the other (`--only a,b`: those), writes each one's JSON into the folder (default reports/bench/) and
 * prints one table of every JSON in it;
 * `npm run bench -- docs [<folder>]` writes docs/benchmarks.md from such a folder; `docs --merge <folder>` replaces
 * only the benchmarks found there and keeps the page's other sections and target rows as they are.
 * Benchmarks are never timed unit tests (DESIGN.md house rule 11).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../../src/paths.ts';
import { DEFAULT_FOLDER, mergeDocs, readResults, renderTable, writeDocs } from './docs.ts';

/** The benchmarks, in the order `all` runs them. */
export const BENCHES = [
  'crypto',
  'wallet-keystore',
  'wallet',
  'webhooks',
  'rpc',
  'institutional',
  'growth',
  'conformance',
  'proxy',
  'redis',
  'packages',
] as const;

const [name, ...rest] = process.argv.slice(2);
const option = (flag: string) => {
  const at = rest.indexOf(flag);
  return at === -1 ? undefined : rest[at + 1];
};

if (name === 'all') {
  const folder = path.resolve(option('--out') ?? DEFAULT_FOLDER);
  const only = option('--only')?.split(',');
  const unknown = only?.filter((b) => !(BENCHES as readonly string[]).includes(b)) ?? [];
  if (unknown.length) {
    console.error(`no benchmark ${unknown.join(', ')}; known: ${BENCHES.join(', ')}`);
    process.exit(2);
  }
  const failed: string[] = [];
  for (const bench of BENCHES.filter((b) => !only || only.includes(b))) {
    console.log(`\n=== ${bench} ===`);
    const file = path.join(folder, `${bench}.json`);
    rmSync(file, { force: true }); // a file left by an earlier run must not stand in for a failed one
    const run = spawnSync(
      path.join(REPO_ROOT, 'node_modules/.bin/tsx'),
      [path.join(REPO_ROOT, 'scripts/bench/index.ts'), bench, '--json', file],
      { stdio: 'inherit', cwd: REPO_ROOT },
    );
    if (run.status !== 0 || !existsSync(file)) failed.push(`${bench} (exit ${run.status})`);
  }
  console.log(`\n${renderTable(readResults(folder))}`);
  if (failed.length) {
    console.error(`failed: ${failed.join(', ')}`);
    process.exitCode = 1;
  }
} else if (name === 'docs') {
  const merge = rest[0] === '--merge';
  const folder = path.resolve((merge ? rest[1] : rest[0]) ?? DEFAULT_FOLDER);
  console.log(`wrote ${merge ? mergeDocs(folder) : writeDocs(folder)}`);
} else if (name && (BENCHES as readonly string[]).includes(name)) {
  await import(`./${name}.ts`);
} else {
  console.error(
    `usage: npm run bench -- <${BENCHES.join('|')}> [--json <file>] | all [--out <folder>] [--only <a,b>] | docs [--merge] [<folder>]${name ? ` (no benchmark "${name}")` : ''}`,
  );
  process.exit(2);
}
