// The one place that locates the repository: everything the kit reads at run time (contracts,
// vectors, spec quotes, built pages) is inside it, so a clone works with nothing beside it. Every other
// folder (cli/, conformance/, scripts/, test/) takes its paths from here. The installed `svckit` package
// keeps the same layout for what it reads (D-230), so the same paths hold there.
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The repository root, or the installed package's folder: the nearest folder above this module with a
 * `package.json` and `specs/`. This file is src/paths.ts in a checkout and part of a chunk under dist/cli/
 * in the package.
 */
export const REPO_ROOT = findRoot(dirname(fileURLToPath(import.meta.url)));

function findRoot(from: string): string {
  for (let dir = resolve(from); ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'specs'))) return dir;
    if (dirname(dir) === dir) throw new Error(`no package.json with specs/ above ${from}`);
  }
}

// D-132: the default vectors directory is repoPath('vectors').
/** An absolute path inside the repository, e.g. `repoPath('vectors')`. */
export function repoPath(...parts: string[]): string {
  return resolve(REPO_ROOT, ...parts);
}

/** The contracts (specs/). */
export const SPECS_DIR = repoPath('specs');

/** The `svckit` command's entry file. */
export const SVCKIT_BIN = repoPath('bin/svckit.js');
