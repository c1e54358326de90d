/**
 * `npm run bench -- packages`: what the two packages cost their users (D-229, D-230).
 *
 * 1. Cold start: `svckit --help` from the compiled package layout (bin/svckit.js loading dist/cli/, as an
 *    install runs it) against a bare `node -e 0`, both on this Node, BENCH_RUNS times each (default 15, after
 *    two warm-up runs), medians. Target: at most 5x. The checkout's start through tsx is shown beside it.
 * 2. Installs from the packed tarballs into empty projects outside the checkout (scripts/packages/pack.ts):
 *    `@svckit/sdk` alone (target: at most 30 packages) and `svckit` with it (its package count and time).
 *    The times include the registry round trips and use this machine's npm cache as it is.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { REPO_ROOT } from '../../src/paths.ts';
import { buildCli } from '../build-cli.ts';
import { installPackages, packPackages } from '../packages/pack.ts';
import { figure, machine, reportResult } from './result.ts';

const RUNS = Number(process.env.BENCH_RUNS ?? 15);

/** Median wall time in milliseconds of running `args` with this Node, after two warm-up runs. */
function medianMs(args: string[], cwd: string): number {
  const once = () => {
    const started = performance.now();
    const run = spawnSync(process.execPath, args, { cwd, stdio: 'ignore' });
    if (run.status !== 0) throw new Error(`${args.join(' ')} exited ${run.status}`);
    return performance.now() - started;
  };
  once();
  once();
  const samples = Array.from({ length: RUNS }, once).sort((a, b) => a - b);
  return samples[Math.floor(samples.length / 2)]!;
}

/** A folder laid out as the installed package: bin/, dist/, specs/ and node_modules, no sources. */
function packageLayout(into: string): string {
  mkdirSync(path.join(into, 'bin'), { recursive: true });
  copyFileSync(path.join(REPO_ROOT, 'bin/svckit.js'), path.join(into, 'bin/svckit.js'));
  copyFileSync(path.join(REPO_ROOT, 'package.json'), path.join(into, 'package.json'));
  for (const name of ['dist', 'specs', 'node_modules']) symlinkSync(path.join(REPO_ROOT, name), path.join(into, name));
  return into;
}

const work = mkdtempSync(path.join(tmpdir(), 'svckit-bench-packages-'));
try {
  await buildCli();
  const layout = packageLayout(path.join(work, 'layout'));
  const bare = medianMs(['-e', '0'], work);
  const compiled = medianMs([path.join(layout, 'bin/svckit.js'), '--help'], work);
  const checkout = medianMs([path.join(REPO_ROOT, 'bin/svckit.js'), '--help'], work);
  console.log(
    `node -e 0: ${bare.toFixed(0)} ms; svckit --help compiled: ${compiled.toFixed(0)} ms; from the checkout (tsx): ${checkout.toFixed(0)} ms`,
  );

  const tarballs = packPackages(path.join(work, 'tarballs'));
  const sdk = installPackages(path.join(work, 'sdk'), [tarballs.sdk.file]);
  console.log(`@svckit/sdk: ${sdk.packages} packages in ${sdk.seconds.toFixed(1)} s`);
  const svckit = installPackages(path.join(work, 'svckit'), [tarballs.sdk.file, tarballs.svckit.file]);
  console.log(`svckit: ${svckit.packages} packages in ${svckit.seconds.toFixed(1)} s`);

  const result = {
    bench: 'packages',
    machine: machine(),
    figures: [
      figure('svckit --help cold start / node -e 0 (compiled package)', compiled / bare, 'x', {
        limit: 5,
        comparison: 'at-most' as const,
      }),
      figure('svckit --help cold start, compiled package: median', compiled, 'ms'),
      figure('node -e 0: median', bare, 'ms'),
      figure('svckit --help from a checkout (tsx compiles the sources): median', checkout, 'ms'),
      figure('@svckit/sdk install: packages', sdk.packages, 'packages', { limit: 30, comparison: 'at-most' as const }),
      figure('@svckit/sdk install: time', sdk.seconds, 's'),
      figure('svckit install (with @svckit/sdk): packages', svckit.packages, 'packages'),
      figure('svckit install (with @svckit/sdk): time', svckit.seconds, 's'),
      figure('svckit tarball', tarballs.svckit.size / 1e6, 'MB'),
      figure('svckit unpacked', tarballs.svckit.unpackedSize / 1e6, 'MB'),
      figure('@svckit/sdk tarball', tarballs.sdk.size / 1e6, 'MB'),
      figure('@svckit/sdk unpacked', tarballs.sdk.unpackedSize / 1e6, 'MB'),
    ],
    notes: [
      `${RUNS} runs of each start after two warm-up runs; medians.`,
      `Tarballs: svckit ${tarballs.svckit.entryCount} files, @svckit/sdk ${tarballs.sdk.entryCount} files.`,
      'Install times include the npm registry round trips and use the npm cache of the machine as it was.',
    ],
  };
  for (const f of result.figures) console.log(`${f.name}: ${f.value.toFixed(2)} ${f.unit} (${f.verdict})`);
  reportResult(result);
} finally {
  rmSync(work, { recursive: true, force: true });
}
