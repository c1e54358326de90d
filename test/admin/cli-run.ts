// Runs `svckit admin …` as its own process (bin/svckit.js, the pinned Node 26), for the CLI tests.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { REPO_ROOT } from '../../src/paths.ts';

/** What a finished command left. */
export type Run = { code: number; stdout: string; stderr: string };

/** The repository root (the CLI runs from there, as a user's clone would). */

/**
 * `svckit admin <args>` with `env` over a neutral environment (no token, a data directory without a CA), and
 * `input` on stdin when given.
 */
export function svckitAdmin(args: string[], env: Record<string, string> = {}, input?: string): Promise<Run> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      ['bin/svckit.js', 'admin', ...args],
      {
        cwd: REPO_ROOT,
        env: {
          ...process.env,
          SVC_ADMIN_TOKEN: '',
          SVC_DATA_DIR: path.join(REPO_ROOT, 'no-such-data-dir'),
          SVC_HOST: '',
          SVC_BASE_PORT: '',
          ...env,
        },
      },
      (error, stdout, stderr) =>
        resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
    child.stdin?.end(input ?? '');
  });
}
