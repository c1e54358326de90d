// The engine's command-line surface: usage errors of `svckit conformance --phases/--seed/--max-examples` and
// of `svckit replay` exit 2 with a message naming the option, before anything is started.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SVCKIT_BIN } from '../../../src/paths.ts';

const svckit = (...args: string[]) =>
  spawnSync(process.execPath, [SVCKIT_BIN, ...args], { encoding: 'utf8', timeout: 120_000 });

describe('engine command line', { timeout: 240_000 }, () => {
  it('refuses an unknown phase, a bad seed and a bad --max-examples with exit 2', () => {
    const phase = svckit('conformance', '--target', 'specs', '--phases', 'examples,stateless');
    expect(phase.status, phase.stderr).toBe(2);
    expect(phase.stderr).toContain(
      '"--phases" expected a comma-separated list of examples, coverage, fuzz, stateful, got "stateless"',
    );
    const seed = svckit('conformance', '--target', 'specs', '--phases', 'fuzz', '--seed', '-4');
    expect(seed.status, seed.stderr).toBe(2);
    expect(seed.stderr).toContain('"--seed" expected an integer');
    const max = svckit('conformance', '--target', 'specs', '--phases', 'fuzz', '--max-examples', 'many');
    expect(max.status, max.stderr).toBe(2);
    expect(max.stderr).toContain('"--max-examples" expected an integer');
  });

  it('svckit replay exits 2 on an unknown option, a file that is not a case file, and a non-https base', () => {
    expect(svckit('replay', '--no-such-option').status).toBe(2);
    expect(svckit('replay', '--help').status).toBe(0);
    const dir = mkdtempSync(path.join(tmpdir(), 'svckit-replay-'));
    const notACase = path.join(dir, 'x.json');
    writeFileSync(notACase, '{"kind":"something else"}');
    const wrong = svckit('replay', notACase, '--base', 'https://127.0.0.1:1/');
    expect(wrong.status).toBe(2);
    expect(wrong.stderr).toContain('is not an svckit conformance case file');
  });
});
