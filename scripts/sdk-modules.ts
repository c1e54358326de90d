/**
 * The public modules of the `@svckit/sdk` package (D-229): each subpath, the repository source it is built
 * from, and whether it is a browser entry point (nothing reachable from it imports a Node built-in).
 *
 * This table is the one source of the SDK's shape. From it come:
 * - `packages/sdk/package.json` `exports` (the compiled `dist/` files and their `.d.ts`);
 * - `tsconfig.json` `paths` and the vitest aliases, so the repository's own code imports the SDK by its
 *   package name and still runs the sources in development;
 * - the SDK's build (`scripts/build-sdk.ts`) and the checks in `test/package/`.
 *
 *   tsx scripts/sdk-modules.ts --write   rewrites the exports and the paths from the table
 *   tsx scripts/sdk-modules.ts           fails when either differs from the table
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO_ROOT } from '../src/paths.ts';

/** The package name. */
export const SDK_PACKAGE = '@svckit/sdk';

/** One public module. */
export interface SdkModule {
  /** The subpath after the package name, e.g. `institutional/client`. */
  subpath: string;
  /** Its source, relative to the repository root. */
  source: string;
  /** True when it bundles for the browser: nothing it reaches imports `node:` built-ins. */
  browser: boolean;
}

/** The four OpenAPI surfaces: each has its functions and types, its client, its zod and its JSON schemas. */
const OPENAPI_SURFACES = ['institutional', 'explorer', 'wallet', 'admin'] as const;

/** Every public module, in the order of `exports`. */
export const SDK_MODULES: readonly SdkModule[] = [
  ...OPENAPI_SURFACES.flatMap((surface) => [
    { subpath: surface, source: `generated/${surface}/index.ts`, browser: true },
    { subpath: `${surface}/client`, source: `generated/${surface}/client/index.ts`, browser: true },
    { subpath: `${surface}/zod`, source: `generated/${surface}/zod.gen.ts`, browser: true },
    { subpath: `${surface}/schemas`, source: `generated/${surface}/schemas.gen.ts`, browser: true },
  ]),
  { subpath: 'chain', source: 'generated/chain/client.gen.ts', browser: true },
  { subpath: 'chain/types', source: 'generated/chain/types.gen.ts', browser: true },
  { subpath: 'chain/document', source: 'generated/chain/document.gen.ts', browser: true },
  { subpath: 'webhooks', source: 'generated/webhooks/types.gen.ts', browser: true },
  { subpath: 'webhooks/schemas', source: 'generated/webhooks/schemas.gen.ts', browser: true },
  { subpath: 'webhooks/verifier', source: 'src/client/webhook-verifier.ts', browser: false },
  { subpath: 'evidence', source: 'generated/evidence/types.gen.ts', browser: true },
  { subpath: 'evidence/schema', source: 'generated/evidence/schema.gen.ts', browser: true },
  { subpath: 'signer', source: 'src/client/mldsa-signer.ts', browser: false },
  { subpath: 'client', source: 'src/client/index.ts', browser: false },
  { subpath: 'wallet-library', source: 'src/client/wallet/index.ts', browser: false },
  { subpath: 'wallet-library/browser', source: 'src/client/wallet/browser.ts', browser: true },
  { subpath: 'wallet-library/addresses', source: 'src/client/wallet/codec.ts', browser: true },
  { subpath: 'crypto', source: 'src/crypto/index.ts', browser: false },
  { subpath: 'crypto/backends', source: 'src/crypto/backends/index.ts', browser: false },
  { subpath: 'errors', source: 'src/errors.ts', browser: true },
  { subpath: 'clock', source: 'src/clock.ts', browser: true },
];

/**
 * What the SDK compiles: every file its public modules reach. The folders below are the SDK's own; the
 * generated server-side files (`fastify.gen.ts`, `routes.gen.ts`, `msw.gen.ts`) and `mocks/` are the
 * `svckit` package's.
 */
export const SDK_SOURCE_ROOTS: readonly string[] = ['src/client', 'src/crypto', 'src/errors.ts', 'src/clock.ts'];

/** Whether a repository file (relative path) is an SDK source: one the package compiles. */
export function isSdkSource(file: string): boolean {
  const relative = file.split(path.sep).join('/');
  if (SDK_SOURCE_ROOTS.some((root) => relative === root || relative.startsWith(`${root}/`))) return true;
  if (!relative.startsWith('generated/')) return false;
  return !/\/(fastify|routes|msw)\.gen\.ts$/.test(relative);
}

/** The compiled file of a source, relative to the package folder. */
export function compiledPath(source: string, extension: '.js' | '.d.ts'): string {
  return `./dist/${source.replace(/\.ts$/, extension)}`;
}

/** The `exports` map of packages/sdk/package.json. */
export function exportsMap(): Record<string, unknown> {
  const map: Record<string, unknown> = {};
  for (const module of SDK_MODULES) {
    map[`./${module.subpath}`] = {
      types: compiledPath(module.source, '.d.ts'),
      import: compiledPath(module.source, '.js'),
    };
  }
  map['./package.json'] = './package.json';
  return map;
}

/** The `paths` of tsconfig.json: each subpath to its source. */
export function sourcePaths(): Record<string, string[]> {
  return Object.fromEntries(SDK_MODULES.map((module) => [`${SDK_PACKAGE}/${module.subpath}`, [`./${module.source}`]]));
}

/** The aliases vitest resolves: the exact specifier to the absolute source. */
export function sourceAliases(): Array<{ find: RegExp; replacement: string }> {
  return SDK_MODULES.map((module) => ({
    find: new RegExp(`^${`${SDK_PACKAGE}/${module.subpath}`.replace(/[/.-]/g, '\\$&')}$`),
    replacement: path.join(REPO_ROOT, module.source),
  }));
}

const PACKAGE_JSON = path.join(REPO_ROOT, 'packages/sdk/package.json');
const TSCONFIG = path.join(REPO_ROOT, 'tsconfig.json');

/** Rewrites (or checks) the exports and the paths; returns the files that differ. */
export function syncSdkModules(write: boolean): string[] {
  const differ: string[] = [];
  const update = (
    file: string,
    edit: (json: { exports?: unknown; compilerOptions: Record<string, unknown> }) => void,
  ) => {
    const before = JSON.parse(readFileSync(file, 'utf8'));
    const json = structuredClone(before);
    edit(json);
    if (JSON.stringify(json) === JSON.stringify(before)) return;
    const after = `${JSON.stringify(json, null, 2)}\n`;
    differ.push(path.relative(REPO_ROOT, file));
    if (write) writeFileSync(file, after);
  };
  update(PACKAGE_JSON, (json) => {
    json.exports = exportsMap();
  });
  update(TSCONFIG, (json) => {
    json.compilerOptions.paths = sourcePaths();
  });
  return differ;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const write = process.argv.includes('--write');
  const differ = syncSdkModules(write);
  if (differ.length > 0 && !write) {
    console.error(`${differ.join(', ')} differ from scripts/sdk-modules.ts: run tsx scripts/sdk-modules.ts --write`);
    process.exit(1);
  }
  console.log(differ.length > 0 ? `wrote ${differ.join(', ')}` : 'the SDK exports and paths match the table');
}
