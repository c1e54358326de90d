// The README's quick start, run as written: the `<!-- quickstart:serve -->` block names the settings the server
// starts with (the test starts `svckit serve`, what `npm start` runs after the extension build, on a fresh data
// directory and free ports), and the `<!-- quickstart -->` block runs in bash from the repository root with
// the environment the README tells the user to set: SVC_ADMIN_TOKEN from the ready line, and the data directory
// and ports through SVC_DATA_DIR and SVC_BASE_PORT. PATH has no node_modules/.bin, as on a user's machine:
// `npx` is what brings the pinned Node 26.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServe, type ServeProcess } from './serve-process.ts';
import { REPO_ROOT } from '../../src/paths.ts';

const readme = readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');

/** The body of the fenced block (of `lang`) right after the marker comment; fails the test when absent. */
function blockAfter(marker: string, lang: string): string {
  const match = new RegExp(`<!-- ${marker} -->\\n\`\`\`${lang}\\n([\\s\\S]*?)\\n\`\`\`\\n`).exec(readme);
  if (!match) throw new Error(`README.md has no \`\`\`${lang} block after <!-- ${marker} -->`);
  return match[1]!;
}

/** The settings a `VAR=value … npm start` line gives the server. */
function serveSettings(block: string): Record<string, string> {
  const line = block
    .split('\n')
    .map((l) => l.replace(/\s+#.*$/, '').trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
  expect(line, 'the serve block is one command line').toHaveLength(1);
  const words = line[0]!.split(/\s+/);
  expect(words.slice(-2), 'the serve block runs npm start').toEqual(['npm', 'start']);
  return Object.fromEntries(
    words.slice(0, -2).map((word) => {
      const assignment = /^([A-Z_][A-Z0-9_]*)=(\S*)$/.exec(word);
      if (!assignment) throw new Error(`the serve block has "${word}" before npm start, not a VAR=value setting`);
      return [assignment[1]!, assignment[2]!];
    }),
  );
}

/** A README sample output line as a pattern: ids, references, hashes and numbers stand for any of their kind. */
function samplePattern(line: string): RegExp {
  const escaped = line.trim().replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const general = escaped
    .replace(/acc_[0-9A-Z]{26}/g, 'acc_[0-9A-HJKMNP-TV-Z]{26}')
    .replace(/TXN\d{8}-[0-9A-Z]{8}/g, 'TXN\\d{8}-[0-9A-Z]{8}')
    .replace(/0x[0-9a-f]+…[0-9a-f]+/g, '0x[0-9a-f]{64}')
    .replace(/block \d+/g, 'block \\d+')
    .replace(/ +/g, ' +');
  return new RegExp(`^ *${general}$`, 'm');
}

let served: ServeProcess;
beforeAll(async () => {
  served = await startServe(serveSettings(blockAfter('quickstart:serve', 'sh')));
}, 120_000);
afterAll(async () => {
  await served?.stop();
});

describe('README quick start', () => {
  it('runs as written against a fresh svckit serve: exit 0, the transfer confirmed and in the statement', async () => {
    const script = blockAfter('quickstart', 'sh');
    const env: Record<string, string> = {};
    for (const [name, value] of Object.entries(process.env))
      if (value !== undefined && !/^SVC_|^DATABASE_URL$|^NODE_EXTRA_CA_CERTS$/.test(name)) env[name] = value;
    env.PATH = (process.env.PATH ?? '')
      .split(path.delimiter)
      .filter((dir) => !dir.endsWith(`node_modules${path.sep}.bin`))
      .join(path.delimiter);
    Object.assign(env, {
      SVC_DATA_DIR: served.env.SVC_DATA_DIR!,
      SVC_BASE_PORT: served.env.SVC_BASE_PORT!,
      SVC_ADMIN_TOKEN: served.ready.adminToken!,
    });

    const run = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn('bash', ['-euo', 'pipefail', '-c', script], {
        cwd: REPO_ROOT,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
      child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
      child.once('close', (code) => resolve({ code, stdout, stderr }));
    });
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);

    const confirmed = /^transfer (TXN\d{8}-[0-9A-Z]{8}) confirmed$/m.exec(run.stdout);
    expect(confirmed, run.stdout).not.toBeNull();
    expect(run.stdout).toMatch(new RegExp(`^ +${confirmed![1]} +out +25\\.00 +confirmed +block \\d+$`, 'm'));
    // The funded account's balance after the transfer, as `accounts list` shows it.
    expect(run.stdout).toMatch(/treasury@bank-a\.example +approved +975\.00 /);
    expect(run.stdout).toMatch(/^secret \(shown once\): whsec_[A-Za-z0-9_-]{43}$/m);

    // What the README says the transfer script prints.
    const sample = /The transfer script prints, for example:\n\n```text\n([\s\S]*?)\n```/.exec(readme);
    expect(sample, 'README.md shows the transfer output').not.toBeNull();
    for (const line of sample![1]!.split('\n')) expect(run.stdout).toMatch(samplePattern(line));
  }, 240_000);
});
