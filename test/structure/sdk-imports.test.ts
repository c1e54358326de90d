// One copy of each client (D-229): outside the SDK's sources, the repository imports SDK modules by the package
// name only, and the SDK's sources import nothing of the rest of the repository.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../src/paths.ts';
import { isSdkSource, SDK_PACKAGE } from '../../scripts/sdk-modules.ts';

function walk(dir: string): string[] {
  return readdirSync(path.join(REPO_ROOT, dir)).flatMap((name) => {
    const relative = `${dir}/${name}`;
    if (statSync(path.join(REPO_ROOT, relative)).isDirectory()) return walk(relative);
    return /\.(ts|tsx|js)$/.test(name) ? [relative] : [];
  });
}

/** Each relative import of `file`: the specifier, the repository file it names, and whether it is type-only. */
function relativeImports(file: string): Array<{ spec: string; target: string; typeOnly: boolean }> {
  const text = readFileSync(path.join(REPO_ROOT, file), 'utf8');
  return [
    ...text.matchAll(
      /(import\s+type\s[^;]*?|import\s[^;]*?|export\s[^;]*?|import\()\s*from\s*'(\.{1,2}\/[^']+)'|import\('(\.{1,2}\/[^']+)'\)/g,
    ),
  ].map((match) => {
    const spec = (match[2] ?? match[3])!;
    const joined = path.posix.normalize(path.posix.join(path.posix.dirname(file), spec));
    const target = /\.(ts|js|json)$/.test(joined) ? joined : `${joined}.ts`;
    return { spec, target, typeOnly: /^import\s+type\s/.test(match[1] ?? '') };
  });
}

const OUTSIDE = ['src', 'cli', 'conformance', 'mocks', 'extension/src'].flatMap(walk).filter((f) => !isSdkSource(f));
const SDK = ['src', 'generated'].flatMap(walk).filter((f) => isSdkSource(f));
const SERVER_SIDE_GENERATED = walk('generated').filter((f) => !isSdkSource(f));

describe('imports across the SDK boundary', () => {
  it('finds the files on both sides', () => {
    expect(OUTSIDE.length).toBeGreaterThan(300);
    expect(SDK.length).toBeGreaterThan(80);
    expect(SERVER_SIDE_GENERATED.length).toBeGreaterThanOrEqual(12);
  });

  it(`code outside the SDK imports SDK modules only as ${SDK_PACKAGE}/…, never by a relative path`, () => {
    const offenders = OUTSIDE.flatMap((file) =>
      relativeImports(file)
        .filter((i) => isSdkSource(i.target))
        .map((i) => `${file}: ${i.spec}`),
    );
    expect(offenders).toEqual([]);
  });

  it("the SDK's sources import only each other and packages, never the rest of the repository or themselves by name", () => {
    const offenders = SDK.flatMap((file) => [
      ...relativeImports(file)
        .filter((i) => !isSdkSource(i.target))
        .map((i) => `${file}: ${i.spec}`),
      ...(readFileSync(path.join(REPO_ROOT, file), 'utf8').includes(`'${SDK_PACKAGE}/`)
        ? [`${file}: ${SDK_PACKAGE}`]
        : []),
    ]);
    expect(offenders).toEqual([]);
  });

  it('the generated server-side files (Fastify route types, MSW handlers) take only types from the SDK sources', () => {
    const valueImports = SERVER_SIDE_GENERATED.flatMap((file) =>
      relativeImports(file)
        .filter((i) => isSdkSource(i.target) && !i.typeOnly)
        .map((i) => `${file}: ${i.spec}`),
    );
    expect(valueImports).toEqual([]);
  });
});
