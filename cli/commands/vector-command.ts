/** What the vector commands (`svckit acvp`, `svckit wycheproof`) share: their first options and how they fail. */
import { relative, resolve } from 'node:path';
import { Command } from 'commander';
import { REPO_ROOT, repoPath } from '../../src/paths.ts';

/** The options every vector command takes. */
export type VectorOptions = { vectors: string; impl: string; out: string };

/** How one vector command describes itself and its `--vectors` and `--out` options. */
export type VectorCommandHelp = {
  description: string;
  /** Help of `--vectors` (the default is vectors/ in the repository). */
  vectors: string;
  /** Help and default of `--out`. */
  out: string;
  outDefault: string;
};

/** A sub-command with `--vectors`, `--impl` and `--out`; the caller adds its own options and action. */
export function vectorCommand(name: string, help: VectorCommandHelp): Command {
  return new Command(name)
    .description(help.description)
    .option('--vectors <dir>', help.vectors, repoPath('vectors'))
    .option('--impl <impl>', 'implementation: openssl, noble or all', 'all')
    .option('--out <dir>', help.out, help.outDefault);
}

/** `step()`, or, when it throws (a bad option or vectors folder), `svckit <name>: <message>` on stderr and exit code 2. */
export function orExit<T>(name: string, step: () => T): T {
  try {
    return step();
  } catch (error) {
    console.error(`svckit ${name}: ${(error as Error).message}`);
    process.exit(2);
  }
}

/** `--vectors` as the reproduce line writes it: relative to the repository, `.` for its root. */
export function vectorsArgument(vectors: string): string {
  return relative(REPO_ROOT, resolve(vectors)) || '.';
}
