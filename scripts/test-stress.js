// `npm run test:stress` (D-227): the `npm test` tier twice in a row while a CPU hog keeps every core busy, so a
// test that passes only on an idle machine fails here. The hog is this script's own worker threads, one per
// core, each spinning on SHA-256 until the runs end or HOG_LIMIT_MS passes, whichever comes first. Exits
// non-zero when either run has a failure; prints each run's wall time and totals.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';

/** The hog's hard bound: it never outlives two runs of the fast tier by much, even if this script hangs. */
const HOG_LIMIT_MS = 60 * 60 * 1000;
const RUNS = 2;

const hogSource = `
  const { createHash } = require('node:crypto');
  const { workerData } = require('node:worker_threads');
  let block = Buffer.alloc(64);
  while (Date.now() < workerData.until) block = createHash('sha256').update(block).digest();
`;

function startHog() {
  const until = Date.now() + HOG_LIMIT_MS;
  return Array.from(
    { length: availableParallelism() },
    () => new Worker(hogSource, { eval: true, workerData: { until } }),
  );
}

/** Runs the fast tier once; resolves with its wall time and the totals of its JSON report. */
function fastTier(reportFile) {
  const started = Date.now();
  const child = spawn('vitest', ['run', '--project', 'fast', '--project', 'fast-own-process'], {
    stdio: 'inherit',
    env: { ...process.env, SVCKIT_TEST_REPORT: reportFile },
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => {
      let report;
      try {
        report = JSON.parse(readFileSync(reportFile, 'utf8'));
      } catch {
        report = undefined;
      }
      resolve({
        code,
        seconds: Math.round((Date.now() - started) / 1000),
        passed: report?.numPassedTests ?? 0,
        failed: report?.numFailedTests ?? 0,
        skipped: (report?.numPendingTests ?? 0) + (report?.numTodoTests ?? 0),
      });
    });
  });
}

const dir = mkdtempSync(path.join(tmpdir(), 'svckit-stress-'));
const hog = startHog();
console.error(`test:stress: ${hog.length} hog threads keep every core busy; the fast tier runs ${RUNS} times`);
const results = [];
try {
  for (let run = 1; run <= RUNS; run++) results.push(await fastTier(path.join(dir, `run-${run}.json`)));
} finally {
  await Promise.all(hog.map((worker) => worker.terminate()));
  rmSync(dir, { recursive: true, force: true });
}
for (const [i, r] of results.entries()) {
  console.log(
    `test:stress run ${i + 1}: ${r.seconds} s, ${r.passed} passed, ${r.failed} failed, ${r.skipped} skipped (exit ${r.code})`,
  );
}
process.exit(results.every((r) => r.code === 0 && r.failed === 0) ? 0 : 1);
