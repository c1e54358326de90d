// The Wycheproof runner (C2SP testvectors_v1). Semantics: a "valid" case must be accepted, an
// "invalid" one rejected; an "acceptable" case passes either way and its outcome is recorded.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import {
  describeImplementation,
  NotOffered,
  type ImplementationId,
  type ImplementationInfo,
} from '../implementations.ts';
import { newGroup, recordCase, sumCounts, type Counts, type GroupResult } from '../results.ts';
import { readJsonFile, sha256File, type JsonObject } from '../vectors.ts';
import type { Verdict } from './handler-types.ts';
import { WYCHEPROOF_HANDLERS } from './handlers.ts';

/** What to run. */
export interface WycheproofRunRequest {
  /** A vectors root (with wycheproof/), a wycheproof folder, or one file. */
  vectorsDir: string;
  /** Implementations to run. */
  implementations: readonly ImplementationId[];
}

/** Results of one file for one implementation. */
export interface WycheproofFileResult {
  /** File name without .json(.gz). */
  file: string;
  /** The file's algorithm field. */
  algorithm: string;
  /** The file's schema field. */
  schema: string;
  /** The implementation. */
  implementation: ImplementationId;
  /** Counts over the file. */
  counts: Counts;
  /** "acceptable" cases by the outcome they got. */
  acceptable: { accepted: number; rejected: number };
  /** Per group (tgId is the 1-based group index). */
  groups: GroupResult[];
  /** Wall time. */
  durationMs: number;
}

/** The whole run. */
export interface WycheproofRun {
  /** The directory the files came from. */
  vectorsDir: string;
  /** Files read with their SHA-256. */
  sources: { path: string; sha256: string }[];
  /** Implementations and versions. */
  implementations: ImplementationInfo[];
  /** Per file and implementation. */
  results: WycheproofFileResult[];
  /** When the run started. */
  startedAt: string;
  /** Wall time. */
  durationMs: number;
}

/** Runs every Wycheproof file found with every requested implementation. */
export function runWycheproof(request: WycheproofRunRequest): WycheproofRun {
  const started = performance.now();
  const run: WycheproofRun = {
    vectorsDir: request.vectorsDir,
    sources: [],
    implementations: request.implementations.map(describeImplementation),
    results: [],
    startedAt: new Date().toISOString(),
    durationMs: 0,
  };
  const files = wycheproofFiles(request.vectorsDir);
  if (files.length === 0) throw new Error(`no Wycheproof file (*.json or *.json.gz) under ${request.vectorsDir}`);
  for (const path of files) {
    const doc = readJsonFile(path) as JsonObject;
    if (!Array.isArray(doc.testGroups)) throw new Error(`${path}: "testGroups" expected an array`);
    run.sources.push({ path, sha256: sha256File(path) });
    for (const impl of request.implementations) run.results.push(runFile(path, doc, impl));
  }
  run.durationMs = performance.now() - started;
  return run;
}

/** Counts per implementation. */
export function wycheproofCountsByImplementation(run: WycheproofRun): Record<string, Counts> {
  const out: Record<string, Counts> = {};
  for (const info of run.implementations)
    out[info.id] = sumCounts(run.results.filter((r) => r.implementation === info.id).map((r) => r.counts));
  return out;
}

function runFile(path: string, doc: JsonObject, impl: ImplementationId): WycheproofFileResult {
  const started = performance.now();
  const groups: GroupResult[] = [];
  const acceptable = { accepted: 0, rejected: 0 };
  (doc.testGroups as JsonObject[]).forEach((group, index) => {
    const handler = WYCHEPROOF_HANDLERS.find((h) => h.type === group.type);
    const result = newGroup(index + 1, handler ? handler.describeGroup(doc, group) : String(group.type));
    const groupSkip = handler
      ? handler.groupSkipReason(doc, group)
      : `test type ${String(group.type)} is not implemented by this runner`;
    for (const test of (group.tests as JsonObject[] | undefined) ?? []) {
      const tcId = Number(test.tcId);
      if (groupSkip || !handler) {
        recordCase(result, tcId, { status: 'skipped', reason: groupSkip ?? 'no handler' });
        continue;
      }
      let verdict: Verdict;
      try {
        verdict = handler.run(group, test, impl);
      } catch (error) {
        if (error instanceof NotOffered) {
          recordCase(result, tcId, { status: 'skipped', reason: error.message });
          continue;
        }
        verdict = { accepted: false, detail: `threw ${(error as Error).message}` };
      }
      recordCase(result, tcId, judge(test, verdict, acceptable));
    }
    groups.push(result);
  });
  return {
    file: basename(path).replace(/\.json(\.gz)?$/, ''),
    algorithm: String(doc.algorithm),
    schema: String(doc.schema),
    implementation: impl,
    counts: sumCounts(groups.map((g) => g.counts)),
    acceptable,
    groups,
    durationMs: performance.now() - started,
  };
}

function judge(test: JsonObject, verdict: Verdict, acceptable: { accepted: number; rejected: number }) {
  const flags = Array.isArray(test.flags) && test.flags.length > 0 ? ` [${test.flags.join(', ')}]` : '';
  const comment = typeof test.comment === 'string' && test.comment ? ` "${test.comment}"` : '';
  switch (test.result) {
    case 'valid':
      return verdict.accepted
        ? { status: 'passed' as const }
        : {
            status: 'failed' as const,
            reason: `valid case rejected: ${verdict.detail ?? 'rejected'}${comment}${flags}`,
          };
    case 'invalid':
      return verdict.accepted
        ? { status: 'failed' as const, reason: `invalid case accepted${comment}${flags}` }
        : { status: 'passed' as const };
    case 'acceptable':
      acceptable[verdict.accepted ? 'accepted' : 'rejected'] += 1;
      return { status: 'passed' as const };
    default:
      return { status: 'failed' as const, reason: `unknown result ${JSON.stringify(test.result)}` };
  }
}

function wycheproofFiles(dir: string): string[] {
  if (!existsSync(dir)) throw new Error(`vectors directory ${dir} does not exist`);
  if (statSync(dir).isFile()) return [dir];
  const folder = existsSync(join(dir, 'wycheproof')) ? join(dir, 'wycheproof') : dir;
  return readdirSync(folder)
    .filter((f) => /\.json(\.gz)?$/.test(f))
    .sort()
    .map((f) => join(folder, f));
}
