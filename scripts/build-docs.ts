/**
 * Builds what the API reference pages at `{base_url}/docs` need beyond the prebuilt Redoc bundle (D-154),
 * into dist/docs/ (or the directory given); run by `npm start` and by the docs tests, never at request time,
 * and not committed:
 *
 * - openrpc.js: `@open-rpc/docs-react` with React and MUI, bundled by esbuild from
 *   src/server/docs/browser/openrpc.js, for the chain methods page;
 * - webhooks.html and asyncapi.css: the webhook contract rendered by `@asyncapi/react-component` on the server
 *   (React's renderToStaticMarkup, as @asyncapi/html-template does), with the component's stylesheet. The
 *   component's browser bundle compiles JSON Schemas with `new Function`, which the pages'
 *   Content-Security-Policy ('self' only) refuses (D-156), so the page ships as static HTML.
 *
 *   tsx scripts/build-docs.ts [outDir]
 */
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Parser, stringify } from '@asyncapi/parser';
import { build } from 'esbuild';
import { REPO_ROOT } from '../src/paths.ts';

/** The repository root. */

/** Where the server looks for the build by default (src/server/docs/assets.ts reads the same folder). */
export const DEFAULT_DOCS_BUILD_DIR = path.join(REPO_ROOT, 'dist/docs');

const require = createRequire(import.meta.url);

// React is loaded through require with the two functions used typed here: the project carries no React types.
const { createElement } = require('react') as { createElement(type: unknown, props: object): unknown };
const { renderToStaticMarkup } = require('react-dom/server') as { renderToStaticMarkup(element: unknown): string };

/** Builds into `outDir`; returns the files written with their sizes. */
export async function buildDocs(outDir = DEFAULT_DOCS_BUILD_DIR): Promise<Array<{ path: string; bytes: number }>> {
  const outputs = new Map<string, Uint8Array>();
  const bundle = await build({
    absWorkingDir: REPO_ROOT,
    entryPoints: ['src/server/docs/browser/openrpc.js'],
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
    outfile: path.join(outDir, 'openrpc.js'),
    define: { 'process.env.NODE_ENV': '"production"' },
  });
  for (const file of bundle.outputFiles) outputs.set(path.relative(outDir, file.path), file.contents);
  outputs.set(
    'webhooks.html',
    Buffer.from(await renderAsyncApi(path.join(REPO_ROOT, 'specs/webhooks.asyncapi.yaml')), 'utf8'),
  );
  outputs.set('asyncapi.css', readFileSync(require.resolve('@asyncapi/react-component/styles/default.min.css')));
  // The svckit package serves Redoc's prebuilt bundle from here, with its licences, instead of installing redoc
  // and its dependency tree (D-230); a checkout serves it from node_modules (src/server/docs/assets.ts).
  for (const name of ['redoc.standalone.js', 'redoc.standalone.js.LICENSE.txt'])
    outputs.set(name, readFileSync(require.resolve(`redoc/bundles/${name}`)));
  outputs.set('redoc.LICENSE', readFileSync(require.resolve('redoc/LICENSE')));

  // Each file is replaced by a rename, so a server (or a parallel test) reading dist/docs never sees it
  // missing or half written; files of an older build that this one does not write are removed.
  mkdirSync(outDir, { recursive: true });
  const written: Array<{ path: string; bytes: number }> = [];
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

/** Renders the AsyncAPI contract at `file` to static HTML with @asyncapi/react-component. */
export async function renderAsyncApi(file: string): Promise<string> {
  const { document, diagnostics } = await new Parser().parse(readFileSync(file, 'utf8'));
  if (!document) {
    const errors = diagnostics.filter((d) => d.severity === 0).map((d) => d.message);
    throw new Error(`${path.relative(REPO_ROOT, file)} could not be parsed: ${errors.slice(0, 3).join('; ')}`);
  }
  // The variant without the parser takes the document @asyncapi/parser stringified.
  const loaded = require('@asyncapi/react-component/lib/cjs/without-parser.js') as { default: unknown };
  const config = { show: { sidebar: true, errors: true }, expand: { messageExamples: true } };
  return renderToStaticMarkup(createElement(loaded.default, { schema: stringify(document)!, config }));
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const outDir = path.resolve(process.argv[2] ?? DEFAULT_DOCS_BUILD_DIR);
  for (const file of await buildDocs(outDir))
    console.error(`${String(file.bytes).padStart(9)}  ${path.join(path.relative(process.cwd(), outDir), file.path)}`);
}
