/**
 * Deterministic ZIP packaging of the built browser extension with fflate: entries sorted by name and dated
 * 1980-01-01, so the same files always give the same bytes, and so the same SHA-256 and signature (D-086).
 */
import { zipSync, type Zippable } from 'fflate';

/** One file: a forward-slash relative path and its bytes. */
export type ZipEntry = { name: string; data: Uint8Array };

/** ZIP's earliest date: fixed so the archive does not depend on when it was built. */
const EPOCH = new Date(1980, 0, 1, 0, 0, 0);

/** The ZIP archive of `entries` (sorted by name), deflated at level 9. */
export function zip(entries: ZipEntry[]): Buffer {
  const files: Zippable = {};
  for (const entry of [...entries].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    files[entry.name] = [entry.data, { level: 9, mtime: EPOCH }];
  }
  return Buffer.from(zipSync(files));
}
