/**
 * `svckit serve` builds the evidence document (surface F) in the background when it is missing or older than
 * the D-045 limit (D-153): spec "a stale document is to be treated as unverified, not as evidence", so the
 * main job serves a fresh one. The build is `svckit evidence build` in a child process at the lowest CPU
 * priority, off the request path; the site answers 503 with Retry-After until the document is there.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { setPriority } from 'node:os';
import path from 'node:path';
import { SETTINGS } from '../../src/config.ts';
import { DEFAULT_MAX_AGE_DAYS } from '../../src/evidence/defaults.ts';
import { SVCKIT_BIN } from '../../src/paths.ts';

/** What the start-up check decided, and how the build ended. */
export type EvidenceAtStart = 'current' | 'built' | 'failed' | 'stopped';

/** The running check: `done` settles when nothing more will happen; `stop` ends a build in progress. */
export type EvidenceBuildHandle = { done: Promise<EvidenceAtStart>; stop(): void };

/**
 * The build's environment: the server's, without the settings the table marks secret (D-148, D-163). The
 * build runs its own in-process stacks and needs none of them, and a `DATABASE_URL` would put those test
 * stacks on the server's own database.
 */
export function buildEnvironment(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const secret = (name: string) => name in SETTINGS && SETTINGS[name as keyof typeof SETTINGS].secret;
  return Object.fromEntries(Object.entries(env).filter(([name]) => !secret(name)));
}
const DAY_MS = 86_400_000;
/** The lowest scheduling priority (nice 19): the build yields the CPU to requests. */
const LOWEST_PRIORITY = 19;

/** The age of the document in `dir` in days, or undefined when it is missing or unreadable. */
export function documentAgeDays(dir: string, now = Date.now()): number | undefined {
  try {
    const generated = (JSON.parse(readFileSync(path.join(dir, 'pqc-evidence.json'), 'utf8')) as { generated?: unknown })
      .generated;
    const at = typeof generated === 'string' ? Date.parse(generated) : Number.NaN;
    return Number.isNaN(at) ? undefined : (now - at) / DAY_MS;
  } catch {
    return undefined;
  }
}

/** Starts the check; lines for the operator go to `log` (stderr in `svckit serve`). */
export function buildEvidenceAtStart(options: {
  evidenceDir: string;
  maxAgeDays?: number;
  log?: (line: string) => void;
}): EvidenceBuildHandle {
  const log = options.log ?? ((line: string) => console.error(line));
  const maxAgeDays = options.maxAgeDays ?? DEFAULT_MAX_AGE_DAYS;
  const age = documentAgeDays(options.evidenceDir);
  if (age !== undefined && age < maxAgeDays) {
    log(`svckit serve: the evidence document is current (${age.toFixed(1)} of ${maxAgeDays} days old); not rebuilt`);
    return { done: Promise.resolve('current'), stop: () => undefined };
  }
  log(
    `svckit serve: building the evidence document in the background (${age === undefined ? 'none yet' : `${age.toFixed(1)} days old`})`,
  );
  const started = performance.now();
  const child = spawn(process.execPath, [SVCKIT_BIN, 'evidence', 'build', '--out', options.evidenceDir], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: buildEnvironment(),
  });
  try {
    if (child.pid !== undefined) setPriority(child.pid, LOWEST_PRIORITY);
  } catch {
    // A platform that refuses to lower the priority still gets the build, at normal priority.
  }
  let stderrTail = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderrTail = (stderrTail + chunk.toString('utf8')).slice(-2000);
  });
  let stopped = false;
  const stop = () => {
    stopped = true;
    child.kill('SIGTERM');
  };
  // The build never outlives the server, however the server ends.
  process.once('exit', stop);
  const done = new Promise<EvidenceAtStart>((resolve) => {
    const finish = (code: number | null, error?: Error) => {
      process.removeListener('exit', stop);
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      if (stopped) return resolve('stopped');
      if (code === 0) {
        log(`svckit serve: evidence document built in ${seconds} s`);
        return resolve('built');
      }
      log(
        `svckit serve: the evidence build failed after ${seconds} s (${error ? error.message : `exit code ${code}`}); the site answers 503 until "svckit evidence build" succeeds\n${stderrTail.trim()}`,
      );
      resolve('failed');
    };
    child.once('error', (error) => finish(null, error));
    child.once('exit', (code) => finish(code));
  });
  return { done, stop };
}
