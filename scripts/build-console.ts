/**
 * Builds the administrator console served at `{base_url}/console/` (D-271) into dist/console/ (or the directory
 * given): the page script bundled by esbuild from src/server/console/browser/main.ts with the generated admin
 * SDK and @noble/post-quantum, and its stylesheet. Run by `npm start` and the package's "build" script, never
 * at request time, and not committed; nothing is fetched from a CDN.
 *
 *   tsx scripts/build-console.ts [outDir]
 */
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { REPO_ROOT } from '../src/paths.ts';

/** Where the server looks for the build by default (src/server/console/routes.ts reads the same folder). */
export const DEFAULT_CONSOLE_BUILD_DIR = path.join(REPO_ROOT, 'dist/console');

/** Builds into `outDir`; returns the files written with their sizes. */
export async function buildConsole(
  outDir = DEFAULT_CONSOLE_BUILD_DIR,
): Promise<Array<{ path: string; bytes: number }>> {
  const outputs = new Map<string, Uint8Array>();
  const bundle = await build({
    absWorkingDir: REPO_ROOT,
    entryPoints: ['src/server/console/browser/main.ts'],
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: ['chrome111', 'firefox115', 'safari16'],
    minify: true,
    charset: 'utf8',
    legalComments: 'linked',
    sourcemap: false,
    write: false,
    logLevel: 'warning',
    outfile: path.join(outDir, 'console.js'),
  });
  for (const file of bundle.outputFiles) outputs.set(path.relative(outDir, file.path), file.contents);
  outputs.set('console.css', readFileSync(path.join(REPO_ROOT, 'src/server/console/browser/console.css')));
  mkdirSync(outDir, { recursive: true });
  const written: Array<{ path: string; bytes: number }> = [];
  // Each file is replaced by a rename, so a server reading dist/console never sees one half written.
  for (const name of [...outputs.keys()].sort()) {
    const temporary = path.join(outDir, `.${name}.${process.pid}.tmp`);
    writeFileSync(temporary, outputs.get(name)!);
    renameSync(temporary, path.join(outDir, name));
    written.push({ path: name, bytes: outputs.get(name)!.length });
  }
  for (const name of readdirSync(outDir)) {
    if (!outputs.has(name) && !name.startsWith('.')) rmSync(path.join(outDir, name), { recursive: true, force: true });
  }
  return written;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const outDir = path.resolve(process.argv[2] ?? DEFAULT_CONSOLE_BUILD_DIR);
  for (const file of await buildConsole(outDir))
    console.error(`${String(file.bytes).padStart(9)}  ${path.join(path.relative(process.cwd(), outDir), file.path)}`);
}
