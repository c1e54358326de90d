// The ACVP runner: every vector set under a directory, every implementation asked for, results per
// set, test group and implementation, and the responses an ACVP client would submit.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import {
  describeImplementation,
  NotOffered,
  type ImplementationId,
  type ImplementationInfo,
} from '../implementations.ts';
import { mergeSkipReasons, newGroup, recordCase, sumCounts, type Counts, type GroupResult } from '../results.ts';
import { checkSha256Sums, sha256File, type ChecksumReport, type JsonObject } from '../vectors.ts';
import type { AcvpCase, AcvpRunOptions, AcvpSetHandler, CaseOutcome } from './handler.ts';
import { caseKey, findAcvpSets, loadAcvpSet, type AcvpVectorSet } from './load.ts';
import { mlDsaKeyGen, mlDsaSigGen, mlDsaSigVer } from './ml-dsa.ts';
import { mlKemEncapDecap, mlKemKeyGen } from './ml-kem.ts';
import { sha3Handler } from './sha3.ts';
import { aesGcmHandler, hmacSha256Handler } from './symmetric.ts';

/** Every handler, in report order. */
export const ACVP_HANDLERS: readonly AcvpSetHandler[] = [
  mlDsaKeyGen,
  mlDsaSigGen,
  mlDsaSigVer,
  mlKemKeyGen,
  mlKemEncapDecap,
  hmacSha256Handler,
  aesGcmHandler,
  sha3Handler,
];

/** What to run. */
export interface AcvpRunRequest {
  /** A vectors directory: a vectors root (with acvp/), an acvp/ folder, or one set's folder. */
  vectorsDir: string;
  /** Implementations to run. */
  implementations: readonly ImplementationId[];
  /** Run the SHA-3 large data tests (default false). */
  largeData?: boolean;
  /** Only sets whose directory name contains one of these strings. */
  only?: readonly string[];
  /** Called once per set and implementation, e.g. for a progress line. */
  onSetDone?: (result: AcvpSetResult) => void;
}

/** Results of one vector set for one implementation. */
export interface AcvpSetResult {
  /** The set's directory name. */
  set: string;
  /** The handler label, or the algorithm when no handler matched. */
  label: string;
  /** Prompt header. */
  algorithm: string;
  /** Prompt header. */
  mode: string | undefined;
  /** Prompt header. */
  revision: string;
  /** Prompt header. */
  vsId: number;
  /** The implementation. */
  implementation: ImplementationId;
  /** Counts over the set. */
  counts: Counts;
  /** Per test group. */
  groups: GroupResult[];
  /** Wall time of this implementation on this set. */
  durationMs: number;
}

/** A vector set's files with their digests. */
export interface AcvpSetSource {
  /** Set name. */
  set: string;
  /** Files read, with SHA-256 of their stored bytes. */
  files: { path: string; sha256: string }[];
}

/** The whole run. */
export interface AcvpRun {
  /** The directory the sets were found in. */
  vectorsDir: string;
  /** The sets and their files. */
  sources: AcvpSetSource[];
  /** The files checked against SHA256SUMS. */
  checksums: ChecksumReport;
  /** Implementations and versions. */
  implementations: ImplementationInfo[];
  /** Options used. */
  options: AcvpRunOptions;
  /** Per set and implementation. */
  results: AcvpSetResult[];
  /** ACVP responses: implementation → set → the [{acvVersion}, {...}] document. */
  responses: Record<string, Record<string, unknown[]>>;
  /** When the run started (ISO 8601). */
  startedAt: string;
  /** Wall time of the whole run. */
  durationMs: number;
}

/** Runs every set found under the vectors directory with every requested implementation. */
export function runAcvp(request: AcvpRunRequest): AcvpRun {
  const started = performance.now();
  const startedAt = new Date().toISOString();
  const acvpDir = existsSync(join(request.vectorsDir, 'acvp')) ? join(request.vectorsDir, 'acvp') : request.vectorsDir;
  if (!existsSync(acvpDir)) throw new Error(`vectors directory ${request.vectorsDir} does not exist`);
  const options: AcvpRunOptions = { largeData: request.largeData ?? false };
  const dirs = findAcvpSets(acvpDir).filter((d) => !request.only?.length || request.only.some((s) => d.includes(s)));
  if (dirs.length === 0)
    throw new Error(`no ACVP vector set (a folder with prompt.json or prompt.json.gz) under ${acvpDir}`);
  const run: AcvpRun = {
    vectorsDir: acvpDir,
    sources: [],
    checksums: { sumsFile: null, matched: [], mismatched: [], unlisted: [] },
    implementations: request.implementations.map(describeImplementation),
    options,
    results: [],
    responses: {},
    startedAt,
    durationMs: 0,
  };
  for (const dir of dirs) {
    const set = loadAcvpSet(dir);
    run.sources.push({ set: set.name, files: set.files.map((path) => ({ path, sha256: sha256File(path) })) });
    const handler = ACVP_HANDLERS.find((h) => h.matches(set.header));
    for (const impl of request.implementations) {
      const { result, response } = runSet(set, handler, impl, options);
      run.results.push(result);
      run.responses[impl] ??= {};
      run.responses[impl][set.name] = response;
      request.onSetDone?.(result);
    }
  }
  run.checksums = checkSha256Sums(
    sumsRoot(acvpDir),
    run.sources.flatMap((s) => s.files.map((f) => f.path)),
  );
  run.durationMs = performance.now() - started;
  return run;
}

/** Counts of a run per implementation (sums over sets). */
export function acvpCountsByImplementation(run: AcvpRun): Record<string, Counts> {
  const out: Record<string, Counts> = {};
  for (const info of run.implementations)
    out[info.id] = sumCounts(run.results.filter((r) => r.implementation === info.id).map((r) => r.counts));
  return out;
}

/** Skip reasons of a run with their counts, over every set and implementation. */
export function acvpSkipReasons(run: AcvpRun): Record<string, number> {
  return mergeSkipReasons(run.results.flatMap((r) => r.groups));
}

function runSet(
  set: AcvpVectorSet,
  handler: AcvpSetHandler | undefined,
  impl: ImplementationId,
  options: AcvpRunOptions,
) {
  const started = performance.now();
  const groups: GroupResult[] = [];
  const responseGroups: JsonObject[] = [];
  for (const group of set.groups) {
    const { tests = [], ...header } = group as JsonObject & { tests?: JsonObject[] };
    const tgId = Number(header.tgId);
    const result = newGroup(tgId, handler ? handler.describeGroup(header) : describeUnknown(set));
    const groupSkip = handler
      ? handler.groupSkipReason?.(header)
      : `no handler for ${describeUnknown(set)} in this runner`;
    const answered: JsonObject[] = [];
    for (const test of tests) {
      const key = caseKey(tgId, test.tcId);
      const c: AcvpCase = {
        group: header,
        test,
        expected: set.expected.get(key) ?? set.projection.get(key),
        projection: set.projection.get(key),
      };
      const outcome: CaseOutcome = groupSkip
        ? { status: 'skipped', reason: groupSkip }
        : runCase(handler as AcvpSetHandler, c, impl, options);
      recordCase(result, Number(test.tcId), outcome);
      if (outcome.status !== 'skipped' && outcome.response) answered.push(outcome.response);
    }
    groups.push(result);
    if (answered.length > 0) responseGroups.push({ tgId, tests: answered });
  }
  const { vsId, algorithm, mode, revision, isSample } = set.header;
  const response = [
    { acvVersion: '1.0' },
    { vsId, algorithm, ...(mode ? { mode } : {}), revision, isSample, testGroups: responseGroups },
  ];
  const result: AcvpSetResult = {
    set: set.name,
    label: handler?.label ?? describeUnknown(set),
    algorithm,
    mode,
    revision,
    vsId,
    implementation: impl,
    counts: sumCounts(groups.map((g) => g.counts)),
    groups,
    durationMs: performance.now() - started,
  };
  return { result, response };
}

/** Runs one case; NotOffered becomes a skip with its reason, anything else thrown a failure. */
function runCase(handler: AcvpSetHandler, c: AcvpCase, impl: ImplementationId, options: AcvpRunOptions): CaseOutcome {
  try {
    return handler.run(c, impl, options);
  } catch (error) {
    if (error instanceof NotOffered) return { status: 'skipped', reason: error.message };
    return { status: 'failed', reason: `threw ${(error as Error).name}: ${(error as Error).message}` };
  }
}

function describeUnknown(set: AcvpVectorSet): string {
  return [set.header.algorithm, set.header.mode, set.header.revision].filter(Boolean).join(' ');
}

// A vectors root (the repository's vectors/) keeps SHA256SUMS one level above acvp/.
function sumsRoot(acvpDir: string): string {
  for (const dir of [acvpDir, dirname(acvpDir), dirname(dirname(acvpDir))])
    if (existsSync(join(dir, 'SHA256SUMS'))) return dir;
  return acvpDir;
}
