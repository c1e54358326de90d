/** `svckit interop`: the ML-DSA-65 / ML-KEM-768 interoperability matrix of OpenSSL, noble and liboqs. */
import { Command } from 'commander';

/** Builds the `interop` sub-command. */
export function interopCommand(): Command {
  return new Command('interop')
    .description(
      'Exchange ML-DSA-65 keys and signatures and ML-KEM-768 keys and ciphertexts between OpenSSL (node:crypto), @noble/post-quantum ' +
        'and liboqs (@oqs/liboqs-js), every pair in both directions, with negative controls (wrong context, tampered signature, ' +
        'tampered ciphertext with matching implicit rejection). Writes interop-results.json.',
    )
    .option('--out <dir>', 'folder for the results file', 'reports/interop')
    .action(async (options: { out: string }) => {
      // Loaded on use: the liboqs WebAssembly modules are large.
      const { formatInteropConsole, runInterop, writeInteropOutputs } = await import(
        '../../conformance/crypto/interop/run.ts'
      );
      const results = await runInterop(`npx svckit interop --out ${options.out}`);
      const path = await writeInteropOutputs(results, options.out);
      console.log(formatInteropConsole(results));
      console.log(`results written to ${path}`);
      process.exitCode = results.summary.failed > 0 ? 1 : 0;
    });
}
