/**
 * Builds the `@svckit/sdk` package (D-229) into packages/sdk/: the SDK's sources (scripts/sdk-modules.ts says
 * which) are copied to packages/sdk/source/ with their repository paths, and TypeScript compiles them to
 * packages/sdk/dist/: ES2022 JavaScript with source maps, and `.d.ts` with declaration maps that point at
 * the copied sources, so an integrator's editor goes to the real definition. An import that leaves the SDK's
 * sources fails the build. LICENSE and NOTICE are copied from the repository root.
 *
 *   tsx scripts/build-sdk.ts      (npm run build -w @svckit/sdk)
 */
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';
import { REPO_ROOT } from '../src/paths.ts';
import { isSdkSource, SDK_MODULES, syncSdkModules } from './sdk-modules.ts';

const PACKAGE_DIR = path.join(REPO_ROOT, 'packages/sdk');
const SOURCE_DIR = path.join(PACKAGE_DIR, 'source');
const DIST_DIR = path.join(PACKAGE_DIR, 'dist');

/** Every SDK source file, relative to the repository root. */
function sdkSources(): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(path.join(REPO_ROOT, dir)).flatMap((name) => {
      const relative = `${dir}/${name}`;
      return statSync(path.join(REPO_ROOT, relative)).isDirectory() ? walk(relative) : [relative];
    });
  return [...walk('generated'), ...walk('src')].filter((file) => file.endsWith('.ts') && isSdkSource(file)).sort();
}

/** The compiler options: the repository's strictness, emitting for Node 20 and current browsers. */
const OPTIONS: ts.CompilerOptions = {
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'],
  types: ['node'],
  typeRoots: [path.join(REPO_ROOT, 'node_modules/@types')],
  strict: true,
  noUncheckedIndexedAccess: true,
  verbatimModuleSyntax: true,
  isolatedModules: true,
  skipLibCheck: true,
  resolveJsonModule: true,
  allowImportingTsExtensions: true,
  rewriteRelativeImportExtensions: true,
  declaration: true,
  declarationMap: true,
  sourceMap: true,
  rootDir: SOURCE_DIR,
  outDir: DIST_DIR,
  newLine: ts.NewLineKind.LineFeed,
};

/** Copies the sources, compiles them and returns the number of files in dist/. */
export function buildSdk(): number {
  const differ = syncSdkModules(false);
  if (differ.length > 0)
    throw new Error(`${differ.join(', ')} differ from scripts/sdk-modules.ts: run tsx scripts/sdk-modules.ts --write`);
  rmSync(SOURCE_DIR, { recursive: true, force: true });
  rmSync(DIST_DIR, { recursive: true, force: true });
  for (const file of sdkSources()) {
    mkdirSync(path.dirname(path.join(SOURCE_DIR, file)), { recursive: true });
    cpSync(path.join(REPO_ROOT, file), path.join(SOURCE_DIR, file));
  }
  for (const file of ['LICENSE', 'NOTICE']) cpSync(path.join(REPO_ROOT, file), path.join(PACKAGE_DIR, file));
  const roots = SDK_MODULES.map((module) => path.join(SOURCE_DIR, module.source));
  const missing = roots.filter((file) => !existsSync(file));
  if (missing.length > 0) throw new Error(`SDK entry points missing: ${missing.join(', ')}`);
  const program = ts.createProgram(roots, OPTIONS);
  const outside = program
    .getSourceFiles()
    .map((file) => file.fileName)
    .filter((file) => !file.includes('/node_modules/') && !file.startsWith(SOURCE_DIR));
  if (outside.length > 0) throw new Error(`the SDK imports files outside its sources: ${outside.join(', ')}`);
  const result = program.emit();
  const diagnostics = [...ts.getPreEmitDiagnostics(program), ...result.diagnostics];
  if (diagnostics.length > 0) {
    const host = {
      getCanonicalFileName: (f: string) => f,
      getCurrentDirectory: () => REPO_ROOT,
      getNewLine: () => '\n',
    };
    throw new Error(ts.formatDiagnostics(diagnostics, host));
  }
  return rewriteDeclarationImports();
}

/**
 * TypeScript rewrites `.ts` to `.js` in the emitted JavaScript but keeps `.ts` in declarations; a consumer's
 * compiler without `allowImportingTsExtensions` wants `.js` there too. Same length, so the maps still hold.
 */
function rewriteDeclarationImports(): number {
  const files = readdirSync(DIST_DIR, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.join(entry.parentPath, entry.name));
  for (const full of files.filter((name) => name.endsWith('.d.ts'))) {
    const text = readFileSync(full, 'utf8');
    const rewritten = text.replace(/((?:from\s+|import\()(['"])\.{1,2}\/[^'"]+)\.ts\2/g, '$1.js$2');
    if (rewritten !== text) writeFileSync(full, rewritten);
  }
  return files.length;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const started = performance.now();
  const files = buildSdk();
  console.log(
    `@svckit/sdk built: ${files} files in packages/sdk/dist in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
}
