/**
 * `svckit replay <case-file>`: sends a case the conformance engine stored (reports/cases/<n>.json) to a
 * deployment again and prints the answer and the verdict of its named check. Exit 0 when the check now
 * passes, 1 when it still fails, 2 on a usage error.
 */
import { readFileSync } from 'node:fs';
import { Command } from 'commander';

type ReplayOptions = { base: string; caCert?: string; authorization?: string; specs?: string };

/** Builds the `replay` sub-command. */
export function replayCommand(): Command {
  return new Command('replay')
    .description('Send a stored conformance case again and print the answer and the verdict of its check.')
    .argument('<case-file>', 'a case file written by `svckit conformance --phases ...` (reports/cases/<n>.json)')
    .requiredOption('--base <url>', '{base_url} of the deployment ({wallet_api_url} for wallet cases)')
    .option('--ca-cert <file>', 'PEM file of an extra CA to trust')
    .option(
      '--authorization <value>',
      'Authorization header to send for cases that carried a credential (redacted in case files)',
    )
    .option('--specs <dir>', 'folder of the contracts the case was generated from (default: the repository specs/)')
    .action(async (caseFile: string, options: ReplayOptions) => {
      const { readCaseFile, replayCase } = await import('../../conformance/engine/replay.ts');
      let file: ReturnType<typeof readCaseFile>;
      let base: URL;
      try {
        file = readCaseFile(caseFile);
        base = new URL(options.base);
        // Plain http only on loopback (a local test server); every surface of a deployment is HTTPS.
        const loopback = base.hostname === '127.0.0.1' || base.hostname === 'localhost' || base.hostname === '[::1]';
        if (base.protocol !== 'https:' && !(base.protocol === 'http:' && loopback))
          throw new Error(`"--base" expected an https URL, got "${options.base}"`);
      } catch (error) {
        console.error(`svckit replay: ${(error as Error).message}`);
        process.exit(2);
      }
      const caCert = options.caCert ? readFileSync(options.caCert, 'utf8') : undefined;
      const outcome = await replayCase(file, {
        base,
        ...(caCert ? { caCert } : {}),
        ...(options.authorization ? { authorization: options.authorization } : {}),
        ...(options.specs ? { specsDir: options.specs } : {}),
      });
      console.log(`${outcome.request.method} ${outcome.request.url}`);
      if (outcome.request.body !== undefined) console.log(`body: ${outcome.request.body.slice(0, 2000)}`);
      console.log(`HTTP ${outcome.response.status} ${outcome.response.headers['content-type'] ?? ''}`);
      console.log(outcome.response.text.slice(0, 2000));
      const v = outcome.verdict;
      console.log(
        v === undefined
          ? `N/A ${file.check}: does not apply to this answer`
          : `${v.ok ? 'PASS' : 'FAIL'} ${file.check}${v.message ? `: ${v.message}` : ''}`,
      );
      process.exitCode = v && !v.ok ? 1 : 0;
    });
}
