/**
 * What the reference pages load (D-154), read once when the plugin starts: Redoc's prebuilt standalone
 * bundle from node_modules, the page stylesheet beside this file, and what scripts/build-docs.ts writes to
 * dist/docs/ (the OpenRPC bundle, the statically rendered AsyncAPI page and its stylesheet). Nothing is
 * fetched from a CDN: the Content-Security-Policy allows only 'self'.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { repoPath } from '../../paths.ts';
import { hold, type HeldFile } from './contracts.ts';

const require = createRequire(import.meta.url);

/** Where scripts/build-docs.ts writes by default. */
export const DOCS_BUILD_DIR = repoPath('dist/docs');

/**
 * Redoc's standalone bundle: from the redoc package in a checkout; the installed svckit package has no redoc
 * dependency and serves the copy scripts/build-docs.ts put in dist/docs/ when it was packed (D-230).
 */
function redocBundle(): string {
  try {
    return require.resolve('redoc/bundles/redoc.standalone.js');
  } catch {
    return path.join(DOCS_BUILD_DIR, 'redoc.standalone.js');
  }
}

const JS = 'text/javascript; charset=utf-8';
const CSS = 'text/css; charset=utf-8';

/** The assets under `/docs/assets/` that need no build. */
const SHIPPED: Record<string, { file: string; type: string }> = {
  'redoc.standalone.js': { file: redocBundle(), type: JS },
  'docs.css': { file: repoPath('src/server/docs/browser/docs.css'), type: CSS },
};

/** The assets under `/docs/assets/` that scripts/build-docs.ts writes. */
const BUILT: Record<string, string> = { 'openrpc.js': JS, 'asyncapi.css': CSS };

/** The statically rendered AsyncAPI page body that scripts/build-docs.ts writes. */
export const ASYNCAPI_FRAGMENT = 'webhooks.html';

/** The assets held in memory, the AsyncAPI page body, and why the build is absent when it is. */
export interface DocsAssets {
  files: Map<string, HeldFile>;
  asyncapiHtml: string | undefined;
  /** Set when dist/docs was not built: the built assets and the pages that need them answer 503 with it. */
  notBuilt: string | undefined;
}

/** The names of the assets the build provides. */
export const BUILT_ASSETS = Object.keys(BUILT);

/** Reads every asset once; `buildDir` is where scripts/build-docs.ts wrote. */
export function loadAssets(buildDir = DOCS_BUILD_DIR): DocsAssets {
  const files = new Map<string, HeldFile>();
  for (const [name, { file, type }] of Object.entries(SHIPPED)) files.set(name, hold(readFileSync(file), type));
  const missing = [...BUILT_ASSETS, ASYNCAPI_FRAGMENT].filter((name) => !existsSync(path.join(buildDir, name)));
  if (missing.length > 0) {
    return {
      files,
      asyncapiHtml: undefined,
      notBuilt: `the reference page build is missing (${missing.join(', ')}); run \`npm run build:docs\` (npm start runs it)`,
    };
  }
  for (const [name, type] of Object.entries(BUILT))
    files.set(name, hold(readFileSync(path.join(buildDir, name)), type));
  return { files, asyncapiHtml: readFileSync(path.join(buildDir, ASYNCAPI_FRAGMENT), 'utf8'), notBuilt: undefined };
}
