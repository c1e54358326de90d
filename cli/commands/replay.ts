/**
 * `svckit replay <case-file>`: sends a case the conformance engine stored (reports/cases/<n>.json) to a
 * deployment again and prints the answer and the verdict of its named check. A case file is input from
 * elsewhere, sent with the operator's credential, so (D-223) a case whose request is not its operation's is
 * refused, the request is printed before it is sent, and it is sent only after a yes on a terminal or with
 * `--yes`. Exit 0 when the check now passes, 1 when it still fails, 2 when nothing was sent (a usage error,
 * a refused case, no confirmation).
 */
import { readFileSync } from 'node:fs';
import { Command } from 'commander';
import { isLoopback } from '../../conformance/targets/rpc.ts';
import type { WireRequest } from '../../conformance/engine/core/client.ts';
import { confirm, visible } from './confirm.ts';
import { readSecret, secretOption, type SecretOption } from './secrets.ts';

type ReplayOptions = {
  base: string;
  entry?: string;
  caCert?: string;
  authorization?: string;
  authorizationFile?: string;
  specs?: string;
  yes?: boolean;
};

/** D-222: the credential replay sends, from --authorization, --authorization-file or SVC_REPLAY_AUTHORIZATION. */
const AUTHORIZATION: SecretOption = {
  flag: 'authorization',
  env: 'SVC_REPLAY_AUTHORIZATION',
  what: 'the Authorization header for cases that carried a credential, which case files redact',
};

/** How much of a body or an answer is printed. */
const SHOWN = 2000;

/** Nothing was sent: the message on stderr, exit 2. */
function stop(message: string): never {
  console.error(`svckit replay: ${message}`);
  process.exit(2);
}

/** The request as it will go on the wire, the operator's credential shown only as where it came from. */
function describe(request: WireRequest, credential: string | undefined): string {
  const lines = [`${request.method} ${request.url}`];
  for (const [name, value] of Object.entries(request.headers))
    lines.push(
      name === 'authorization'
        ? `${name}: ${value === credential ? '<your --authorization credential>' : value}`
        : `${name}: ${value}`,
    );
  if (request.body !== undefined) lines.push(`body: ${request.body.slice(0, SHOWN)}`);
  return visible(lines.join('\n'));
}

/** `--base`: an https URL, or plain http only on loopback (a local test server); every surface of a deployment is HTTPS. */
function replayBase(given: string): URL {
  const base = new URL(given);
  if (base.protocol !== 'https:' && !(base.protocol === 'http:' && isLoopback(base.hostname)))
    throw new Error(`"--base" expected an https URL, got "${given}"`);
  return base;
}

/** Builds the `replay` sub-command. */
export function replayCommand(): Command {
  const command = new Command('replay')
    .description(
      'Send a stored conformance case again and print the answer and the verdict of its check. The request is ' +
        'checked against its operation in the contract and printed first; on a terminal you confirm it.',
    )
    .argument(
      '<case-file>',
      'a case file written by `svckit conformance --phases ...` (reports/cases/<n>.json), or a HAR file written by --har',
    )
    .option('--entry <n>', 'with a HAR file: the entry to send (1-based)')
    .requiredOption('--base <url>', '{base_url} of the deployment ({wallet_api_url} for wallet cases)')
    .option('--ca-cert <file>', 'PEM file of an extra CA to trust')
    .option('--specs <dir>', 'folder of the contracts the case was generated from (default: the repository specs/)')
    .option('--yes', 'send without asking; without it and without a terminal nothing is sent');
  return secretOption(command, AUTHORIZATION).action(async (caseFile: string, options: ReplayOptions) => {
    if (options.entry !== undefined || /\.har$/i.test(caseFile)) return replayHarEntry(caseFile, options);
    const { readCaseFile, prepareReplay, sendReplay } = await import('../../conformance/engine/openapi/replay.ts');
    let file: ReturnType<typeof readCaseFile>;
    let prepared: ReturnType<typeof prepareReplay>;
    let authorization: string | undefined;
    let caCert: string | undefined;
    try {
      file = readCaseFile(caseFile);
      const base = replayBase(options.base);
      authorization = readSecret(options, AUTHORIZATION);
      caCert = options.caCert ? readFileSync(options.caCert, 'utf8') : undefined;
      prepared = prepareReplay(file, {
        base,
        ...(authorization ? { authorization } : {}),
        ...(options.specs ? { specsDir: options.specs } : {}),
      });
    } catch (error) {
      stop((error as Error).message);
    }
    // D-223: the operator sees what goes out, with their credential, before it does.
    console.log(visible(`${file.case.operation} (${file.case.surface}), case ${file.case.kind}: ${file.case.reason}`));
    console.log(describe(prepared.request, authorization));
    if (!options.yes) {
      const answer = await confirm('Send this request? [y/N] ');
      if (answer === 'no terminal') stop('not sent: no terminal to confirm on; give --yes to send without asking');
      if (answer !== 'yes') stop('not sent');
    }
    const outcome = await sendReplay(file, prepared, caCert ? { caCert } : {});
    console.log(`HTTP ${outcome.response.status} ${outcome.response.headers['content-type'] ?? ''}`);
    console.log(visible(outcome.response.text.slice(0, SHOWN)));
    const v = outcome.verdict;
    console.log(
      v === undefined
        ? `N/A ${file.check}: does not apply to this answer`
        : `${v.ok ? 'PASS' : 'FAIL'} ${file.check}${v.message ? `: ${v.message}` : ''}`,
    );
    process.exitCode = v && !v.ok ? 1 : 0;
  });
}

/**
 * Sends entry `--entry` of a HAR file again (D-232, D-223): checked to be a contract's operation, printed, confirmed;
 * exit 0 when the answer has the recorded status, 1 when it differs, 2 when nothing was sent.
 */
async function replayHarEntry(path: string, options: ReplayOptions): Promise<void> {
  const [{ readHarEntry, prepareHarReplay }, { engineClient }] = await Promise.all([
    import('../../conformance/engine/openapi/har-replay.ts'),
    import('../../conformance/engine/core/client.ts'),
  ]);
  let prepared: ReturnType<typeof prepareHarReplay>;
  let authorization: string | undefined;
  let caCert: string | undefined;
  try {
    if (options.entry === undefined || !/^\d{1,9}$/.test(options.entry))
      throw new Error(`"--entry" expected the number of the HAR entry to send, got ${JSON.stringify(options.entry)}`);
    const base = replayBase(options.base);
    authorization = readSecret(options, AUTHORIZATION);
    caCert = options.caCert ? readFileSync(options.caCert, 'utf8') : undefined;
    prepared = prepareHarReplay(readHarEntry(path, Number(options.entry)), {
      base,
      ...(authorization ? { authorization } : {}),
      ...(options.specs ? { specsDir: options.specs } : {}),
    });
  } catch (error) {
    stop((error as Error).message);
  }
  console.log(visible(`${prepared.operation}, recorded answer HTTP ${prepared.recordedStatus}`));
  console.log(describe(prepared.request, authorization));
  if (!options.yes) {
    const answer = await confirm('Send this request? [y/N] ');
    if (answer === 'no terminal') stop('not sent: no terminal to confirm on; give --yes to send without asking');
    if (answer !== 'yes') stop('not sent');
  }
  const client = engineClient({ ...(caCert ? { caCert } : {}), connections: 1 });
  try {
    const response = await client.send(prepared.request);
    console.log(`HTTP ${response.status} ${response.headers['content-type'] ?? ''}`);
    console.log(visible(response.text.slice(0, SHOWN)));
    const same = response.status === prepared.recordedStatus;
    console.log(
      `${same ? 'SAME' : 'DIFFERENT'}: recorded HTTP ${prepared.recordedStatus}, now HTTP ${response.status}`,
    );
    process.exitCode = same ? 0 : 1;
  } finally {
    client.close();
  }
}
