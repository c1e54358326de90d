// Reads the files `svckit evidence build` writes (pqc-evidence.json, sbom.cdx.json, cbom.cdx.json),
// keeping each in memory with its ETag until the file changes on disk.
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { verifyEvidence } from '../../evidence/verify.ts';

/** A file ready to serve. */
export interface ServedFile {
  /** The bytes. */
  body: Buffer;
  /** Strong ETag: a quoted SHA-256 prefix of the bytes. */
  etag: string;
  /** The file's modification time. */
  lastModified: Date;
}

/** Why a file cannot be served. */
export type Unavailable = { missing: true; reason: string } | { missing: false; reason: string };

/** A cache of the evidence directory's files, refreshed when a file's size or mtime changes. */
export class EvidenceFiles {
  readonly #dir: string;
  readonly #cache = new Map<string, { key: string; file: ServedFile | Unavailable }>();

  /** Serves files from `dir`. */
  constructor(dir: string) {
    this.#dir = dir;
  }

  /** The evidence document, if it exists and verifies (a stale one is still served: readers judge staleness). */
  document(): ServedFile | Unavailable {
    return this.#load('pqc-evidence.json', (body) => {
      let parsed: unknown;
      try {
        parsed = JSON.parse(body.toString('utf8'));
      } catch (error) {
        return `it is not JSON (${(error as Error).message})`;
      }
      // spec: "a stale document is to be treated as unverified" - by its readers; serving it is fine.
      const problems = verifyEvidence(parsed).violations.filter((v) => v.rule !== 'generated.stale');
      const first = problems[0];
      return first
        ? `it does not verify (${problems.length} violation(s); first: ${first.rule} at ${first.path}: ${first.message})`
        : undefined;
    });
  }

  /** A CycloneDX file written beside the document (sbom.cdx.json or cbom.cdx.json). */
  cycloneDx(name: 'sbom.cdx.json' | 'cbom.cdx.json'): ServedFile | Unavailable {
    return this.#load(name, (body) => {
      try {
        JSON.parse(body.toString('utf8'));
        return undefined;
      } catch (error) {
        return `it is not JSON (${(error as Error).message})`;
      }
    });
  }

  #load(name: string, problem: (body: Buffer) => string | undefined): ServedFile | Unavailable {
    const path = join(this.#dir, name);
    let key: string;
    let mtime: Date;
    try {
      const stat = statSync(path);
      key = `${stat.size}:${stat.mtimeMs}`;
      mtime = stat.mtime;
    } catch {
      this.#cache.delete(name);
      // The text names no server path: it is answered to the public.
      return {
        missing: true,
        reason: `${name} has not been built yet; svckit serve builds it at start, or run "svckit evidence build"`,
      };
    }
    const cached = this.#cache.get(name);
    if (cached?.key === key) return cached.file;
    const body = readFileSync(path);
    const why = problem(body);
    const file: ServedFile | Unavailable = why
      ? { missing: false, reason: `${name} cannot be served: ${why}` }
      : { body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`, lastModified: mtime };
    this.#cache.set(name, { key, file });
    return file;
  }
}
