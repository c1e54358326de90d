// Versions of the crypto backends, read from what is installed (never typed by hand), for results
// files and the evidence document.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The version field of an installed package's package.json, found from its resolved entry point. */
export function installedPackageVersion(name: string): string {
  let dir = dirname(fileURLToPath(import.meta.resolve(name)));
  for (;;) {
    try {
      const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
        name?: string;
        version?: string;
      };
      if (manifest.name === name && typeof manifest.version === 'string') return manifest.version;
    } catch {
      // no package.json at this level: keep walking up
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`cannot find the package.json of the installed package "${name}"`);
    dir = parent;
  }
}

/** The OpenSSL version node:crypto is linked against (e.g. "3.5.8"). */
export function opensslVersion(): string {
  return process.versions.openssl ?? 'unknown';
}
