/** `svckit acvp`: runs NIST ACVP vector sets against OpenSSL and/or noble; writes responses and a results file. */
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { parseImplementations } from '../../conformance/crypto/implementations.ts';
import { orExit, type VectorOptions, vectorCommand, vectorsArgument } from './vector-command.ts';

type AcvpOptions = VectorOptions & { largeData?: boolean; only?: string[] };

/** Builds the `acvp` sub-command. */
export function acvpCommand(): Command {
  return vectorCommand('acvp', {
    description:
      'Run ACVP gen-val vector sets (ML-DSA keyGen/sigGen/sigVer, ML-KEM keyGen/encapDecap, HMAC-SHA2-256, AES-GCM, SHA3-256), gzipped or plain. ' +
      'Parameter sets other than ML-DSA-65 and ML-KEM-768 count as skipped. Writes responses/<impl>/<set>.json and acvp-results.json.',
    vectors: 'vectors directory (default: vectors/ in the repository; a root with acvp/, an acvp/ folder, or one set)',
    out: 'folder for the responses and the results file',
    outDefault: 'reports/acvp',
  })
    .option(
      '--large-data',
      'also run the SHA-3 large data tests (1 to 8 GiB each; about a minute with OpenSSL, ten with noble)',
    )
    .option('--only <names...>', 'only sets whose folder name contains one of these strings')
    .action(async (options: AcvpOptions) => {
      const implementations = orExit('acvp', () => parseImplementations(options.impl));
      // Loaded on use, so other commands start without the runners.
      const { runAcvp } = await import('../../conformance/crypto/acvp/run.ts');
      const { formatAcvpConsole, writeAcvpOutputs } = await import('../../conformance/crypto/acvp/output.ts');
      const run = orExit('acvp', () =>
        runAcvp({
          vectorsDir: resolve(options.vectors),
          implementations,
          largeData: options.largeData ?? false,
          only: options.only,
        }),
      );
      const reproduce = [
        'npx svckit acvp',
        `--vectors ${vectorsArgument(options.vectors)}`,
        `--impl ${options.impl}`,
        `--out ${options.out}`,
        options.largeData ? '--large-data' : '',
        options.only?.length ? `--only ${options.only.join(' ')}` : '',
      ]
        .filter(Boolean)
        .join(' ');
      const written = await writeAcvpOutputs(run, options.out, reproduce);
      console.log(formatAcvpConsole(run));
      console.log(
        `responses and results written under ${options.out} (${written.length} files); total ${(run.durationMs / 1000).toFixed(1)} s`,
      );
      process.exitCode = run.results.some((r) => r.counts.failed > 0) ? 1 : 0;
    });
}
