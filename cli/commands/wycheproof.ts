/** `svckit wycheproof`: runs C2SP Wycheproof vectors against OpenSSL and/or noble; writes a results file. */
import { relative, resolve } from 'node:path';
import { Command } from 'commander';
import { parseImplementations, type ImplementationId } from '../../conformance/crypto/implementations.ts';
import { REPO_ROOT, repoPath } from '../../src/paths.ts';

type WycheproofOptions = { vectors: string; impl: string; out: string };

/** Builds the `wycheproof` sub-command. */
export function wycheproofCommand(): Command {
  return new Command('wycheproof')
    .description(
      'Run Wycheproof vectors (ML-DSA-65 sign and verify; ML-KEM-768 keygen, encaps, decaps; HMAC-SHA256, AES-GCM, ECDSA secp256k1): valid cases must be accepted, ' +
        'invalid ones rejected, acceptable ones may go either way. Writes wycheproof-results.json.',
    )
    .option(
      '--vectors <dir>',
      'vectors directory (default: vectors/ in the repository; a root with wycheproof/, a folder of files, or one file)',
      repoPath('vectors'),
    )
    .option('--impl <impl>', 'implementation: openssl, noble or all', 'all')
    .option('--out <dir>', 'folder for the results file', 'reports/wycheproof')
    .action(async (options: WycheproofOptions) => {
      let implementations: ImplementationId[];
      try {
        implementations = parseImplementations(options.impl);
      } catch (error) {
        console.error(`svckit wycheproof: ${(error as Error).message}`);
        process.exit(2);
      }
      // Loaded on use, so other commands start without the runners.
      const { runWycheproof } = await import('../../conformance/crypto/wycheproof/run.ts');
      const { formatWycheproofConsole, writeWycheproofOutputs } = await import(
        '../../conformance/crypto/wycheproof/output.ts'
      );
      let run;
      try {
        run = runWycheproof({ vectorsDir: resolve(options.vectors), implementations });
      } catch (error) {
        console.error(`svckit wycheproof: ${(error as Error).message}`);
        process.exit(2);
      }
      const reproduce = `npx svckit wycheproof --vectors ${relative(REPO_ROOT, resolve(options.vectors)) || '.'} --impl ${options.impl} --out ${options.out}`;
      const path = await writeWycheproofOutputs(run, options.out, reproduce);
      console.log(formatWycheproofConsole(run));
      console.log(`results written to ${path}; total ${(run.durationMs / 1000).toFixed(1)} s`);
      process.exitCode = run.results.some((r) => r.counts.failed > 0) ? 1 : 0;
    });
}
