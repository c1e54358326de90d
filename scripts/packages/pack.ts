/**
 * Packs the two packages and installs tarballs the way a user does: `npm pack` in the checkout, then
 * `npm install <tarball>` in an empty folder outside it, with an environment that names nothing in the
 * checkout (no repository folder on PATH, no npm_* variables of an enclosing `npm run`). Used by the tarball
 * test (scripts/test-packages.ts) and the install benchmark (scripts/bench/packages.ts).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../../src/paths.ts';

/** One packed tarball, as `npm pack --json` reports it. */
export interface Tarball {
  name: string;
  version: string;
  file: string;
  /** Compressed bytes. */
  size: number;
  unpackedSize: number;
  entryCount: number;
}

/** The environment a user's shell would give: PATH without the checkout's folders, no npm_* variables. */
export function outsideEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (key.toLowerCase().startsWith('npm_') || key === 'INIT_CWD' || key === 'NODE_OPTIONS' || key === 'NODE_PATH')
      continue;
    env[key] = value;
  }
  env.PATH = (process.env.PATH ?? '')
    .split(path.delimiter)
    .filter((dir) => dir !== '' && !path.resolve(dir).startsWith(REPO_ROOT))
    .join(path.delimiter);
  return { ...env, ...extra };
}

/** Runs npm in `cwd` with the outside environment; returns its stdout. */
export function npm(cwd: string, args: string[], env = outsideEnv()): string {
  return execFileSync('npm', args, {
    cwd,
    env,
    encoding: 'utf8',
    maxBuffer: 64 << 20,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/**
 * Packs `svckit` (its prepack builds the SDK, the compiled CLI, the extension and the docs) and `@svckit/sdk`
 * into `outDir`.
 */
export function packPackages(outDir: string): { svckit: Tarball; sdk: Tarball } {
  mkdirSync(outDir, { recursive: true });
  const pack = (args: string[]): Tarball => {
    // npm pack prints the prepack's output before its JSON; the JSON is the last top-level array.
    const out = execFileSync('npm', ['pack', '--json', '--pack-destination', outDir, ...args], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
      maxBuffer: 64 << 20,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const json = out.slice(out.lastIndexOf('\n[') + 1);
    const [entry] = JSON.parse(json) as Array<{
      name: string;
      version: string;
      filename: string;
      size: number;
      unpackedSize: number;
      entryCount: number;
    }>;
    if (!entry) throw new Error(`npm pack ${args.join(' ')} reported nothing`);
    return {
      name: entry.name,
      version: entry.version,
      file: path.join(outDir, entry.filename),
      size: entry.size,
      unpackedSize: entry.unpackedSize,
      entryCount: entry.entryCount,
    };
  };
  const svckit = pack([]);
  const sdk = pack(['--workspace', '@svckit/sdk', '--ignore-scripts']);
  return { svckit, sdk };
}

/** What one install took. */
export interface Install {
  folder: string;
  seconds: number;
  /** Installed packages: every node of the tree but the project itself. */
  packages: number;
}

/** Makes `folder` an empty ES-module project and installs `specs` (tarballs, or any other `npm install` spec) into it. */
export function installPackages(folder: string, specs: string[]): Install {
  mkdirSync(folder, { recursive: true });
  writeFileSync(
    path.join(folder, 'package.json'),
    `${JSON.stringify({ name: 'svckit-consumer', version: '1.0.0', private: true, type: 'module' }, null, 2)}\n`,
  );
  const started = performance.now();
  npm(folder, ['install', '--no-audit', '--no-fund', ...specs]);
  const seconds = (performance.now() - started) / 1000;
  return { folder, seconds, packages: installedPackages(folder) };
}

/** The number of packages installed in `folder` (`npm query '*'`: every node but the root). */
export function installedPackages(folder: string): number {
  const nodes = JSON.parse(npm(folder, ['query', '*'])) as Array<{ location: string }>;
  return nodes.filter((node) => node.location !== '').length;
}
