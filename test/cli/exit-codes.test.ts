// Every svckit sub-command exits 2 on a usage error (an unknown option), as the top-level command does, and 0
// for --help: the exit override reaches commands added with addCommand.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { SVCKIT_BIN } from '../../src/paths.ts';

const svckit = (...args: string[]) =>
  spawnSync(process.execPath, [SVCKIT_BIN, ...args], { encoding: 'utf8', timeout: 60_000 });
const COMMANDS = [
  ['generate'],
  ['conformance'],
  ['serve'],
  ['acvp'],
  ['wycheproof'],
  ['interop'],
  ['evidence', 'verify'],
  ['admin', 'health'],
  ['proxy', '--upstream', 'https://example.com'],
];

describe('svckit exit codes', () => {
  it.each(COMMANDS.map((words) => [words.join(' '), words] as const))(
    'svckit %s exits 2 on an unknown option and 0 for --help',
    { timeout: 120_000 },
    (_name, words) => {
      const wrong = svckit(...words, '--no-such-option');
      expect(wrong.status, wrong.stderr).toBe(2);
      expect(wrong.stderr).toContain("unknown option '--no-such-option'");
      const help = svckit(...words, '--help');
      expect(help.status, help.stderr).toBe(0);
      expect(help.stdout).toContain('Usage: svckit');
    },
  );
});
