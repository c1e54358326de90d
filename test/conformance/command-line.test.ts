// The command lines a run's report prints (D-232): its own with secret values left out, and the one that runs a
// single check again.
import { describe, expect, it } from 'vitest';
import { commandLine, replayCheckCommand } from '../../cli/commands/conformance/command-line.ts';

describe('the command lines of a report', () => {
  const argv = [
    'conformance',
    '--base',
    'https://h.example',
    '--admin-token',
    'svcadm_secret',
    '--only',
    'chain',
    'explorer',
  ];

  it('names the command once and leaves every secret value out', () => {
    expect(commandLine(argv)).toBe(
      'svckit conformance --base https://h.example --admin-token *** --only chain explorer',
    );
    expect(commandLine(['--rpc-sender-key=0xabc', '--quiet'])).toBe('svckit conformance --rpc-sender-key=*** --quiet');
  });

  it('runs one check again: the selection and report flags replaced by --only <id>', () => {
    expect(replayCheckCommand([...argv, '--report', 'json', '--phases', 'fuzz'], 'chain.batch.empty')).toBe(
      'svckit conformance --base https://h.example --admin-token *** --phases fuzz --only chain.batch.empty',
    );
  });
});
