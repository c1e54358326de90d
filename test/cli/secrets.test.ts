// Secrets off the command line (D-222): --webhook-secret, --webhook-previous-secret, --rpc-sender-key,
// --admin-token (svckit conformance), --token (svckit admin) and --authorization (svckit replay) each also
// come from a file (`-file`, `-` for stdin) or an environment variable, --help says so and says the flag is
// visible to other local users, and no error repeats a secret.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { adminCommand } from '../../cli/commands/admin.ts';
import { conformanceCommand } from '../../cli/commands/conformance.ts';
import type { ConformanceOptions } from '../../cli/commands/conformance/options.ts';
import { resolveSecrets } from '../../cli/commands/conformance/secrets.ts';
import { replayCommand } from '../../cli/commands/replay.ts';
import { readSecret } from '../../cli/commands/secrets.ts';
import { REPO_ROOT, SVCKIT_BIN } from '../../src/paths.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'svckit-secrets-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A file holding `text`, readable by its owner only. */
function secretFile(name: string, text: string): string {
  const file = path.join(dir, name);
  writeFileSync(file, text, { mode: 0o600 });
  return file;
}

const SECRET = { flag: 'webhook-secret', env: 'SVC_WEBHOOK_SECRET', what: 'the secret' };

describe('readSecret (D-222)', () => {
  it('takes the flag, else the file (one line, its line break dropped), else the variable', () => {
    const file = secretFile('one', 'from-file\n');
    const env = { SVC_WEBHOOK_SECRET: 'from-env' };
    expect(readSecret({ webhookSecret: 'from-flag' }, SECRET, env)).toBe('from-flag');
    expect(readSecret({ webhookSecretFile: file }, SECRET, env)).toBe('from-file');
    expect(readSecret({}, SECRET, env)).toBe('from-env');
    expect(readSecret({}, SECRET, { SVC_WEBHOOK_SECRET: '' })).toBeUndefined();
    expect(readSecret({}, SECRET, env, false)).toBeUndefined();
  });

  it('refuses the flag and the file together, an empty or multi-line file and a missing one, never naming the secret', () => {
    expect(() => readSecret({ webhookSecret: 'a', webhookSecretFile: 'b' }, SECRET, {})).toThrow(
      'give either "--webhook-secret" or "--webhook-secret-file", not both',
    );
    expect(() => readSecret({ webhookSecretFile: secretFile('empty', '\n') }, SECRET, {})).toThrow(/got nothing/);
    const twoLines = secretFile('two', 'hunter2-first\nhunter2-second\n');
    expect(() => readSecret({ webhookSecretFile: twoLines }, SECRET, {})).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining('hunter2') }),
    );
    expect(() => readSecret({ webhookSecretFile: path.join(dir, 'absent') }, SECRET, {})).toThrow(/ENOENT/);
  });

  it('reads a variable only for a feature that was asked for', () => {
    const env = {
      SVC_RPC_SENDER_KEY: 'k',
      SVC_WEBHOOK_SECRET: 's',
      SVC_WEBHOOK_PREVIOUS_SECRET: 'p',
      SVC_ADMIN_TOKEN: 't',
    };
    const alone = { target: 'reference', out: 'reports', maxExamples: '100' } as ConformanceOptions;
    resolveSecrets(alone, env);
    expect(alone).toMatchObject({ adminToken: 't' });
    expect(alone.rpcSenderKey).toBeUndefined();
    expect(alone.webhookSecret).toBeUndefined();
    const asked = { ...alone, rpc: 'http://127.0.0.1:8545', webhookReceiver: 'https://bank.example/hooks' };
    resolveSecrets(asked, env);
    expect(asked).toMatchObject({ rpcSenderKey: 'k', webhookSecret: 's', webhookPreviousSecret: 'p', adminToken: 't' });
  });
});

describe('--help names the file and the variable and warns about the flag (D-222)', () => {
  const squash = (text: string) => text.replace(/\s+/g, ' ');
  it.each([
    [
      'svckit conformance',
      () => conformanceCommand(),
      ['rpc-sender-key', 'admin-token', 'second-token', 'webhook-secret', 'webhook-previous-secret'],
    ],
    [
      'svckit admin token rotate',
      () => adminCommand().commands.find((c) => c.name() === 'token')!.commands[0]!,
      ['token'],
    ],
    ['svckit replay', () => replayCommand(), ['authorization']],
  ] as const)('%s', (_, command, flags) => {
    const help = squash(command().helpInformation());
    for (const flag of flags) {
      expect(help).toMatch(new RegExp(`--${flag} <[a-z]+> .*visible to other local users in the process list`));
      expect(help).toContain(`--${flag}-file <file>`);
    }
    for (const variable of help.match(/prefer --[a-z-]+-file or (SVC_[A-Z_]+)/g) ?? [])
      expect(variable).toMatch(/SVC_/);
    expect(help.match(/visible to other local users/g)).toHaveLength(flags.length);
  });
});

type Run = { code: number; stdout: string; stderr: string };

/** `svckit conformance <args>` as its own process. */
function conformance(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [SVCKIT_BIN, 'conformance', ...args],
      {
        cwd: REPO_ROOT,
        env: {
          ...process.env,
          SVC_ADMIN_TOKEN: '',
          SVC_WEBHOOK_SECRET: '',
          SVC_WEBHOOK_PREVIOUS_SECRET: '',
          SVC_RPC_SENDER_KEY: '',
          ...env,
        },
      },
      (error, stdout, stderr) =>
        resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe('svckit conformance takes its secrets from files and variables (D-222)', () => {
  it('the two webhook secrets, one from a file and one from its variable, reach the receiver check', async () => {
    const secret = 'w'.repeat(40);
    const run = await conformance(
      ['--webhook-receiver', 'https://127.0.0.1:1/hooks', '--webhook-secret-file', secretFile('hook', `${secret}\n`)],
      { SVC_WEBHOOK_PREVIOUS_SECRET: secret },
    );
    // Both arrived: the receiver's own check finds them equal, before any connection.
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toContain('"--webhook-previous-secret" must differ from "--webhook-secret"');
    expect(run.stderr).not.toContain(secret);
  });

  it('the rpc sender key from its file reaches the target', async () => {
    const key = await conformance([
      '--rpc',
      'http://127.0.0.1:1',
      '--rpc-sender-key-file',
      secretFile('key', 'not-a-key-zz\n'),
    ]);
    expect(key.code, key.stderr).toBe(2);
    expect(key.stderr).toContain('"rpc-sender-key" expected 32 bytes of hex');
    expect(key.stderr).not.toContain('not-a-key-zz');
  });
});
