/**
 * Builds the browser extension (a real Manifest V3 extension, built by the project) from
 * extension/ into dist/extension/ (or the directory given), which the wallet server packages, signs and serves
 * at GET /download/extension (src/server/wallet/download.ts).
 *
 * Deterministic: esbuild bundles with fixed options and paths relative to the repository (no absolute paths,
 * no timestamps, no source maps), files are written in sorted order, and every file's mtime is set to
 * SOURCE_DATE_EPOCH (default 2000-01-01T00:00:00Z), so two builds of the same sources are byte-identical and a
 * deterministic zip of them is too. Prints the files with their SHA-256 and a tree digest.
 *
 *   tsx scripts/build-extension.ts [outDir]
 */
import { createHash } from 'node:crypto';
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type BuildOptions } from 'esbuild';
import { REPO_ROOT } from '../src/paths.ts';

/** The repository root. */

/** One built file. */
export interface BuiltFile {
  path: string;
  bytes: number;
  sha256: string;
}

/** The entry points: page scripts are IIFE (content scripts cannot be modules), the service worker an ES module. */
export const ENTRIES: Array<{ entry: string; out: string; format: 'iife' | 'esm' }> = [
  { entry: 'extension/src/inpage.ts', out: 'inpage.js', format: 'iife' },
  { entry: 'extension/src/content.ts', out: 'content.js', format: 'iife' },
  { entry: 'extension/src/background.ts', out: 'background.js', format: 'esm' },
  { entry: 'extension/src/options.ts', out: 'options.js', format: 'iife' },
  { entry: 'extension/src/approve.ts', out: 'approve.js', format: 'iife' },
  { entry: 'extension/src/wallet-view.ts', out: 'wallet.js', format: 'iife' },
];

/** Builds into `outDir` (emptied first); returns the files and the tree digest. */
export async function buildExtension(
  outDir = path.join(REPO_ROOT, 'dist/extension'),
): Promise<{ outDir: string; files: BuiltFile[]; treeSha256: string }> {
  const epoch = Number(process.env.SOURCE_DATE_EPOCH ?? 946_684_800);
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  const common: BuildOptions = {
    absWorkingDir: REPO_ROOT,
    bundle: true,
    platform: 'browser',
    target: ['chrome111'],
    charset: 'utf8',
    legalComments: 'eof',
    minify: false,
    sourcemap: false,
    write: false,
    logLevel: 'warning',
    // Bundles never reach for Node built-ins; a stray import fails the build instead of shipping a shim.
    external: [],
    define: { 'process.env.NODE_ENV': '"production"' },
  };
  const outputs = new Map<string, Uint8Array>();
  for (const { entry, out, format } of ENTRIES) {
    const result = await build({ ...common, entryPoints: [entry], format, outfile: path.join(outDir, out) });
    for (const file of result.outputFiles ?? []) outputs.set(path.relative(outDir, file.path), file.contents);
  }
  outputs.set('manifest.json', readFileSync(path.join(REPO_ROOT, 'extension/manifest.json')));
  const staticDir = path.join(REPO_ROOT, 'extension/static');
  for (const name of readdirSync(staticDir).sort()) outputs.set(name, readFileSync(path.join(staticDir, name)));

  const files: BuiltFile[] = [];
  for (const name of [...outputs.keys()].sort()) {
    const bytes = outputs.get(name)!;
    const full = path.join(outDir, name);
    mkdirSync(path.dirname(full), { recursive: true });
    writeFileSync(full, bytes);
    utimesSync(full, epoch, epoch);
    files.push({ path: name, bytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') });
  }
  utimesSync(outDir, epoch, epoch);
  const treeSha256 = createHash('sha256')
    .update(files.map((f) => `${f.path}\0${f.sha256}\n`).join(''))
    .digest('hex');
  return { outDir, files, treeSha256 };
}

/** Copies a built extension directory (for tests that must not touch dist/). */
export function copyBuilt(from: string, to: string): void {
  cpSync(from, to, { recursive: true, preserveTimestamps: true });
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const outDir = path.resolve(process.argv[2] ?? path.join(REPO_ROOT, 'dist/extension'));
  const { files, treeSha256 } = await buildExtension(outDir);
  // stderr: `npm start` runs this before `svckit serve`, whose stdout carries only the ready line.
  for (const f of files) console.error(`${f.sha256}  ${String(f.bytes).padStart(8)}  ${f.path}`);
  console.error(`tree sha256 ${treeSha256}  ${path.relative(process.cwd(), outDir) || '.'}`);
}
