// The one place that locates the repository: everything the kit reads at run time (contracts,
// vectors, spec quotes) is inside it, so a clone works with nothing beside it.
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (this file is conformance/paths.ts). */
export const REPO_ROOT = resolve(fileURLToPath(new URL('../', import.meta.url)));

// D-132: the default vectors directory is repoPath('vectors').
/** An absolute path inside the repository, e.g. `repoPath('vectors')`. */
export function repoPath(...parts: string[]): string {
  return resolve(REPO_ROOT, ...parts);
}
