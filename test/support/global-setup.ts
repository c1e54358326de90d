// Runs once per `vitest run`, in the main process, before any worker starts (vitest.config.ts: globalSetup).
// Every temporary file of the run (data directories, extension builds, the PGlite template) goes into one
// directory, which is removed when the run ends: stacks a worker shares across files (D-227) are stopped by the
// worker's end, not by a file, so their directories would otherwise stay behind.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** Points TMPDIR (which os.tmpdir() and child processes read) at a fresh directory; the teardown removes it. */
export default function setup(): () => void {
  const runDir = mkdtempSync(path.join(tmpdir(), 'svckit-test-run-'));
  const previous = process.env.TMPDIR;
  process.env.TMPDIR = runDir;
  return () => {
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
    rmSync(runDir, { recursive: true, force: true });
  };
}
