/**
 * The command lines a report prints (D-232): the run's own, with secret values left out, and the ones that
 * replay one check (`--only <id>`) or one case file (`svckit replay`).
 */
import type { ConformanceOptions } from './options.ts';
import { CONFORMANCE_SECRETS } from './secrets.ts';

const SECRET_FLAGS = new Set(CONFORMANCE_SECRETS.map((s) => `--${s.flag}`));
/** Flags that select checks: replaced when a line replays one check. */
const SELECTION_FLAGS = new Set([
  '--only',
  '--exclude',
  '--report',
  '--har',
  '--min-score',
  '--min-coverage',
  '--list',
]);

const quote = (arg: string) => (/^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`);

/** Splits argv into flags with their values (`--only a b` → one group). */
function groups(argv: readonly string[]): string[][] {
  const out: string[][] = [];
  for (const arg of argv) {
    if (arg.startsWith('--') || out.length === 0) out.push([arg]);
    else out[out.length - 1]?.push(arg);
  }
  return out;
}

/** The command's own arguments: `argv` after `conformance` when it still names the sub-command. */
const own = (argv: readonly string[]) => (argv[0] === 'conformance' ? argv.slice(1) : argv);

/** `svckit conformance …` as run, each secret value replaced by `***` (they come from files or the environment). */
export function commandLine(argv: readonly string[]): string {
  const parts = groups(own(argv)).map((group) => {
    const [flag = '', ...values] = group;
    const name = flag.split('=')[0] ?? flag;
    if (!SECRET_FLAGS.has(name)) return group.map(quote).join(' ');
    return flag.includes('=') ? `${name}=***` : [flag, ...values.map(() => '***')].join(' ');
  });
  return ['svckit', 'conformance', ...parts].join(' ');
}

/** The run's command reduced to the one check `id`. */
export function replayCheckCommand(argv: readonly string[], id: string): string {
  const kept = groups(own(argv)).filter((g) => !SELECTION_FLAGS.has((g[0] ?? '').split('=')[0] ?? ''));
  return `${commandLine(kept.flat())} --only ${quote(id)}`;
}

/** `svckit replay <file>` against the run's deployment (the credential from SVC_REPLAY_AUTHORIZATION). */
export function replayCaseCommand(
  options: Pick<ConformanceOptions, 'out' | 'base' | 'wallet' | 'caCert'>,
  file: string,
): string {
  const path = `${options.out.replace(/\/$/, '')}/${file}`;
  const base = options.base ?? options.wallet;
  return [
    'svckit replay',
    quote(path),
    base ? `--base ${quote(base)}` : '--base <base_url>',
    ...(options.caCert ? [`--ca-cert ${quote(options.caCert)}`] : []),
  ].join(' ');
}
