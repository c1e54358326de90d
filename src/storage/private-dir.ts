/**
 * Directories that hold keys and data at rest (the data directory, PGlite's files) are private to the
 * server's user (D-149): created mode 0700 whatever the umask, and an existing one with group or other
 * access is tightened to 0700.
 */
import { chmodSync, mkdirSync, statSync } from 'node:fs';

/** Creates `dir` (and missing parents) mode 0700, or tightens an existing `dir` to 0700 (D-149). */
export function ensurePrivateDir(dir: string): void {
  // mkdir's mode is masked by the umask; the chmod below makes 0700 exact.
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  // Windows has no POSIX modes: Node maps chmod to the read-only flag only.
  if (process.platform === 'win32') return;
  if ((statSync(dir).mode & 0o777) !== 0o700) chmodSync(dir, 0o700);
}
