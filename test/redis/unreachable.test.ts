// D-168: with REDIS_URL pointing where no Redis answers, or with a wrong password, the start fails at once and
// says so, naming the address by scheme, host and port and never the URL's password; `svckit serve` prints no
// ready line.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SVCKIT_BIN } from '../../src/paths.ts';
import { openSharedState, SharedStateUnavailableError } from '../../src/storage/redis.ts';
import { freePort, redisMissing, startRedis } from '../support/redis.ts';
import { startTestStack } from '../support/stack.ts';

const PASSWORD = 'pw-Zq81-never-shown';

describe('REDIS_URL where nothing answers', () => {
  it('the stack refuses to start with a message that names host and port, not the password', async () => {
    const port = await freePort();
    const dataDir = mkdtempSync(path.join(tmpdir(), 'svckit-redis-dead-'));
    try {
      const started = Date.now();
      const failure = await startTestStack({
        dataDir,
        persist: false,
        env: { REDIS_URL: `redis://svc:${PASSWORD}@127.0.0.1:${port}/0` },
      }).then(
        (running) => running.close(),
        (error: unknown) => error,
      );
      expect(failure).toBeInstanceOf(SharedStateUnavailableError);
      const message = (failure as Error).message;
      expect(message).toContain(`redis://127.0.0.1:${port} (REDIS_URL) is unavailable`);
      expect(message).toContain('ECONNREFUSED');
      expect(message).not.toContain(PASSWORD);
      expect(message).not.toContain('svc:');
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('`svckit serve` exits non-zero without a ready line, and its output never carries the password', async () => {
    const port = await freePort();
    const dataDir = mkdtempSync(path.join(tmpdir(), 'svckit-redis-dead-'));
    try {
      const child = spawn(process.execPath, [SVCKIT_BIN, 'serve'], {
        env: {
          ...process.env,
          DATABASE_URL: '',
          SVC_DATA_DIR: dataDir,
          SVC_BASE_PORT: '0',
          SVC_WALLET_PORT: '0',
          SVC_SITE_PORT: '0',
          REDIS_URL: `redis://svc:${PASSWORD}@127.0.0.1:${port}`,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
      });
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
      expect(code).not.toBe(0);
      expect(stdout).not.toContain('"event":"ready"');
      expect(stderr).toContain(`Redis at redis://127.0.0.1:${port} (REDIS_URL) is unavailable`);
      expect(stdout + stderr).not.toContain(PASSWORD);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);

  it.skipIf(redisMissing !== undefined)(
    `a wrong password in REDIS_URL stops the start, and the message shows neither password${redisMissing ? ` (skipped: ${redisMissing})` : ''}`,
    async () => {
      const redis = await startRedis(undefined, ['--requirepass', 'the-right-one-Kd7']);
      try {
        const url = new URL(redis.url);
        url.password = PASSWORD;
        const failure = await openSharedState(url.href).then(
          (shared) => shared.close(),
          (error: unknown) => error,
        );
        expect(failure).toBeInstanceOf(SharedStateUnavailableError);
        const message = (failure as Error).message;
        expect(message).toContain(`Redis at redis://127.0.0.1:${redis.port} (REDIS_URL) is unavailable`);
        expect(message).toContain('WRONGPASS');
        expect(message).not.toContain(PASSWORD);
        expect(message).not.toContain('the-right-one-Kd7');
      } finally {
        await redis.stop();
      }
    },
  );
});
