/** `svckit wycheproof`: runs C2SP Wycheproof vectors against OpenSSL and/or noble; writes a results file. */
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { parseImplementations } from '../../conformance/crypto/implementations.ts';
import { orExit, type VectorOptions, vectorCommand, vectorsArgument } from './vector-command.ts';

/** Builds the `wycheproof` sub-command. */
export function wycheproofCommand(): Command {
  return vectorCommand('wycheproof', {
    description:
      'Run Wycheproof vectors (ML-DSA-65 sign and verify; ML-KEM-768 keygen, encaps, decaps; HMAC-SHA256, AES-GCM, ECDSA secp256k1): valid cases must be accepted, ' +
      'invalid ones rejected, acceptable ones may go either way. Writes wycheproof-results.json.',
    vectors:
      'vectors directory (default: vectors/ in the repository; a root with wycheproof/, a folder of files, or one file)',
    out: 'folder for the results file',
    outDefault: 'reports/wycheproof',
  }).action(async (options: VectorOptions) => {
    const implementations = orExit('wycheproof', () => parseImplementations(options.impl));
    // Loaded on use, so other commands start without the runners.
    const { runWycheproof } = await import('../../conformance/crypto/wycheproof/run.ts');
    const { formatWycheproofConsole, writeWycheproofOutputs } = await import(
      '../../conformance/crypto/wycheproof/output.ts'
    );
    const run = orExit('wycheproof', () => runWycheproof({ vectorsDir: resolve(options.vectors), implementations }));
    const reproduce = `npx svckit wycheproof --vectors ${vectorsArgument(options.vectors)} --impl ${options.impl} --out ${options.out}`;
    const path = await writeWycheproofOutputs(run, options.out, reproduce);
    console.log(formatWycheproofConsole(run));
    console.log(`results written to ${path}; total ${(run.durationMs / 1000).toFixed(1)} s`);
    process.exitCode = run.results.some((r) => r.counts.failed > 0) ? 1 : 0;
  });
}
