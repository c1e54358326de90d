// The one place that locates the repository: everything the kit reads at run time (contracts,
// vectors, spec quotes, built pages) is inside it, so a clone works with nothing beside it. Every other
// folder (cli/, conformance/, scripts/, test/) takes its paths from here.
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (this file is src/paths.ts). */
export const REPO_ROOT = resolve(fileURLToPath(new URL('../', import.meta.url)));

// D-132: the default vectors directory is repoPath('vectors').
/** An absolute path inside the repository, e.g. `repoPath('vectors')`. */
export function repoPath(...parts: string[]): string {
  return resolve(REPO_ROOT, ...parts);
}

/** The contracts (specs/). */
export const SPECS_DIR = repoPath('specs');

/** The `svckit` command's entry file. */
export const SVCKIT_BIN = repoPath('bin/svckit.js');
