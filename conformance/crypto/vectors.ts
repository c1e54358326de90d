// Reading test vector files, gzipped or plain. The in-scope vectors are carried in the repository's
// vectors/ (DESIGN: "the in-scope ACVP and Wycheproof files with provenance, licences and SHA256SUMS");
// a user may point the runners at other files with --vectors.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { gunzipSync } from 'node:zlib';

/** A JSON object as parsed from a vector file. */
export type JsonObject = Record<string, unknown>;

/** The bytes of a file, gunzipped when they start with the gzip magic number. */
export function readMaybeGzip(path: string): Buffer {
  const raw = readFileSync(path);
  return raw.length >= 2 && raw[0] === 0x1f && raw[1] === 0x8b ? gunzipSync(raw) : raw;
}

/** Parses a JSON vector file, gzipped or plain; the error names the file. */
export function readJsonFile(path: string): unknown {
  try {
    return JSON.parse(readMaybeGzip(path).toString('utf8'));
  } catch (error) {
    throw new Error(`cannot read JSON vectors from ${path}: ${(error as Error).message}`);
  }
}

/** The path of `<dir>/<name>.json.gz` or `<dir>/<name>.json`, whichever exists. */
export function findJsonFile(dir: string, name: string): string | undefined {
  for (const candidate of [`${name}.json.gz`, `${name}.json`]) {
    const path = join(dir, candidate);
    if (existsSync(path)) return path;
  }
  return undefined;
}

/** Lower-case hex SHA-256 of a file's stored bytes (as listed in SHA256SUMS). */
export function sha256File(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

/** Every directory under `root` (itself included), depth first, sorted by path. */
export function walkDirectories(root: string): string[] {
  const out: string[] = [];
  const visit = (dir: string) => {
    out.push(dir);
    for (const entry of readdirSync(dir).sort()) {
      const path = join(dir, entry);
      if (statSync(path).isDirectory()) visit(path);
    }
  };
  visit(root);
  return out;
}

/** Outcome of checking files against a SHA256SUMS list found at or above them. */
export interface ChecksumReport {
  /** The SHA256SUMS file used, or null when none was found. */
  sumsFile: string | null;
  /** Files whose digest matched. */
  matched: string[];
  /** Files whose digest differed (a changed vector file). */
  mismatched: string[];
  /** Files not listed. */
  unlisted: string[];
}

/** Checks files against the SHA256SUMS in `vectorsRoot` (the repository's vectors/ carries one). */
export function checkSha256Sums(vectorsRoot: string, files: readonly string[]): ChecksumReport {
  const sumsFile = join(vectorsRoot, 'SHA256SUMS');
  const report: ChecksumReport = {
    sumsFile: existsSync(sumsFile) ? sumsFile : null,
    matched: [],
    mismatched: [],
    unlisted: [],
  };
  if (!report.sumsFile) return { ...report, unlisted: [...files] };
  const listed = new Map<string, string>();
  for (const line of readFileSync(sumsFile, 'utf8').split('\n')) {
    const match = /^([0-9a-f]{64})\s+\*?(?:\.\/)?(.+)$/.exec(line.trim());
    if (match) listed.set(match[2] as string, match[1] as string);
  }
  for (const file of files) {
    const expected = listed.get(relative(vectorsRoot, file));
    if (expected === undefined) report.unlisted.push(file);
    else if (expected === sha256File(file)) report.matched.push(file);
    else report.mismatched.push(file);
  }
  return report;
}

/** Bytes of a hex string from a vector (either case); throws naming the field on bad hex. */
export function hexBytes(value: unknown, field: string): Uint8Array {
  if (typeof value !== 'string' || value.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(value)) {
    throw new Error(`vector field "${field}" expected hex, got ${JSON.stringify(value)?.slice(0, 40)}`);
  }
  return new Uint8Array(Buffer.from(value, 'hex'));
}

/** Upper-case hex, as ACVP writes it. */
export function upperHex(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('hex').toUpperCase();
}
