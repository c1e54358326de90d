// One implementation of keys, signing, fees and networks: the extension's bundles reach chain and crypto
// code only through the wallet library's browser-safe module (src/client/wallet/, entry browser.ts), which
// the Node library uses too. esbuild's own import graph of each entry point is checked, so a second copy
// (an extension file importing @noble/*, @scure/* or viem itself, or any other part of src/) fails here.
import path from 'node:path';
import { build, type Metafile } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { ENTRIES } from '../../scripts/build-extension.ts';
import { REPO_ROOT } from '../../src/paths.ts';
import { readFileSync } from 'node:fs';

/** Packages that implement keys, signatures or chain encodings. */
const CHAIN_PACKAGES = /(^|\/)node_modules\/(@noble\/|@scure\/|viem\/|ox\/|abitype\/)/;
/** The shared module: the wallet library's browser-safe files, the error base class and the clock they use. */
const SHARED = /^src\/client\/wallet\/[^/]+\.ts$|^src\/errors\.ts$|^src\/clock\.ts$/;
/** The one door of the shared module that extension files import. */
const ENTRY = 'src/client/wallet/browser.ts';

/** Imports in an esbuild graph that bypass the shared module; empty when there is one implementation. */
function secondImplementations(metafile: Metafile): string[] {
  const problems: string[] = [];
  for (const [file, input] of Object.entries(metafile.inputs)) {
    if (file.startsWith('src/') && !SHARED.test(file)) problems.push(`${file} is bundled but is not the shared module`);
    if (!file.startsWith('extension/')) continue;
    for (const imported of input.imports) {
      if (imported.external) problems.push(`${file} imports ${imported.path} (external)`);
      else if (CHAIN_PACKAGES.test(imported.path)) problems.push(`${file} imports ${imported.path} itself`);
      else if (!imported.path.startsWith('extension/') && !SHARED.test(imported.path))
        problems.push(`${file} imports ${imported.path}, outside the shared module`);
      else if (SHARED.test(imported.path) && imported.path !== ENTRY)
        problems.push(`${file} imports ${imported.path} past ${ENTRY}`);
    }
  }
  return problems;
}

async function graph(entry: string): Promise<Metafile> {
  const result = await build({
    absWorkingDir: REPO_ROOT,
    entryPoints: [entry],
    bundle: true,
    platform: 'browser',
    format: 'esm',
    write: false,
    metafile: true,
    logLevel: 'silent',
    outdir: path.join(REPO_ROOT, 'dist/structure-check'),
  });
  return result.metafile;
}

describe('the extension and the library share one implementation', () => {
  it('every extension bundle reaches keys, signing, fees and networks only through src/client/wallet', async () => {
    for (const { entry } of ENTRIES) {
      const metafile = await graph(entry);
      expect(secondImplementations(metafile), entry).toEqual([]);
      expect(
        Object.keys(metafile.inputs).some((f) => f.startsWith('src/client/wallet/')),
        entry,
      ).toBe(
        // the entries that sign or derive (the view derives its addresses and signs in at unlock, D-177)
        ['background.ts', 'options.ts', 'wallet-view.ts'].some((name) => entry.endsWith(name)),
      );
    }
  });

  it('the signing entries bundle the shared transaction signer that the Node library sends with', async () => {
    const background = await graph('extension/src/background.ts');
    expect(Object.keys(background.inputs)).toContain('src/client/wallet/evm-tx.ts');
    const sendEvm = readFileSync(path.join(REPO_ROOT, 'src/client/wallet/send-evm.ts'), 'utf8');
    expect(sendEvm).toContain("from './evm-tx.ts'");
    expect(sendEvm).not.toMatch(/\.signTransaction\(/); // no second signer in the library either
  });

  it('the check finds a second implementation', () => {
    const violating: Metafile = {
      outputs: {},
      inputs: {
        'extension/src/rogue.ts': {
          bytes: 1,
          imports: [
            {
              path: 'node_modules/@noble/curves/esm/secp256k1.js',
              kind: 'import-statement',
              original: '@noble/curves',
            },
            { path: 'src/crypto/index.ts', kind: 'import-statement', original: '../../src/crypto/index.ts' },
            {
              path: 'src/client/wallet/keys.ts',
              kind: 'import-statement',
              original: '../../src/client/wallet/keys.ts',
            },
          ],
        },
        'src/crypto/index.ts': { bytes: 1, imports: [] },
      },
    };
    expect(secondImplementations(violating).sort()).toEqual([
      'extension/src/rogue.ts imports node_modules/@noble/curves/esm/secp256k1.js itself',
      'extension/src/rogue.ts imports src/client/wallet/keys.ts past src/client/wallet/browser.ts',
      'extension/src/rogue.ts imports src/crypto/index.ts, outside the shared module',
      'src/crypto/index.ts is bundled but is not the shared module',
    ]);
  });
});
