/**
 * Compiles the `svckit` package's code (the CLI, the server, the harness and the PGlite worker thread) into
 * dist/cli/ with esbuild (D-230): ES modules for Node 26 with linked source maps, one flat folder, so a
 * module's `import.meta.url` has the worker beside it and the package root one folder above dist/. Packages
 * stay imports (`packages: 'external'`), `@svckit/sdk` among them: the server and the harness use the SDK
 * package's one copy of each client. bin/svckit.js loads dist/cli/main.js when there are no sources beside it.
 *
 *   tsx scripts/build-cli.ts      (part of npm run build)
 */
import { rmSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { REPO_ROOT } from '../src/paths.ts';
import { SDK_PACKAGE } from './sdk-modules.ts';

/** The compiled folder. */
export const CLI_DIST = path.join(REPO_ROOT, 'dist/cli');

/** Builds dist/cli/; returns the packages the compiled code imports (its run-time dependencies). */
export async function buildCli(outDir = CLI_DIST): Promise<string[]> {
  rmSync(outDir, { recursive: true, force: true });
  const result = await build({
    absWorkingDir: REPO_ROOT,
    entryPoints: { main: 'cli/main.ts', 'pglite-worker': 'src/storage/pglite-worker.ts' },
    outdir: outDir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node26',
    packages: 'external',
    // tsconfig.json maps the SDK's subpaths to its sources for development; the package imports the SDK package.
    external: [SDK_PACKAGE, `${SDK_PACKAGE}/*`],
    chunkNames: '[name]-[hash]',
    sourcemap: 'linked',
    sourcesContent: false,
    legalComments: 'none',
    metafile: true,
    logLevel: 'warning',
  });
  const packages = new Set<string>();
  for (const input of Object.values(result.metafile.inputs)) {
    for (const imported of input.imports) {
      if (!imported.external || imported.path.startsWith('node:')) continue;
      const parts = imported.path.split('/');
      packages.add(imported.path.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? imported.path));
    }
  }
  return [...packages].sort();
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const started = performance.now();
  const packages = await buildCli();
  console.log(
    `dist/cli built in ${((performance.now() - started) / 1000).toFixed(1)} s; it imports ${packages.length} packages: ${packages.join(', ')}`,
  );
}
