// `svckit evidence verify`: the schema, then the rules of the spec's "Evidence document (F)":
// "counts are stated separately; a skipped or not-applicable case is not a pass", "provenance and
// provenanceNote never both appear", and "a stale document is to be treated as unverified, not as
// evidence" (D-045: older than 30 days, the limit an option).
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { pqcEvidenceSchema } from '@svckit/sdk/evidence/schema';
import { DEFAULT_MAX_AGE_DAYS } from './defaults.ts';

/** Rule ids a violation can carry. */
export type EvidenceRule =
  | 'schema'
  | 'counts.consistent'
  | 'skipped.not_a_pass'
  | 'packages.provenance_exclusive'
  | 'generated.stale'
  | 'generated.future';

/** One violation: its rule, where, and what is wrong. */
export interface Violation {
  /** The rule broken. */
  rule: EvidenceRule;
  /** JSON pointer into the document. */
  path: string;
  /** What is wrong, with the values found. */
  message: string;
}

/** Verification outcome. "unverified" means the only violation is a stale `generated`. */
export interface VerifyResult {
  /** verified: no violation; unverified: stale only; invalid: anything else. */
  status: 'verified' | 'unverified' | 'invalid';
  /** Every violation found. */
  violations: Violation[];
  /** The document's age in days, when `generated` parses. */
  ageDays?: number;
}

/** Options of verifyEvidence. */
export interface VerifyOptions {
  /** Days after which `generated` is stale (D-045 default 30). */
  maxAgeDays?: number;
  /** The time to judge staleness against (default now). */
  now?: Date;
}

// A clock a little ahead of the verifier's is not an error; a document from the future is.
const FUTURE_TOLERANCE_MS = 5 * 60 * 1000;

let validator: ValidateFunction | undefined;

/** Checks a parsed document against the schema and every rule; collects all violations. */
export function verifyEvidence(document: unknown, options: VerifyOptions = {}): VerifyResult {
  validator ??= compileSchema();
  const violations: Violation[] = [];
  if (!validator(document)) {
    for (const e of validator.errors ?? [])
      violations.push({ rule: 'schema', path: e.instancePath || '/', message: schemaMessage(e) });
  }
  const doc = (document && typeof document === 'object' ? document : {}) as Record<string, unknown>;
  checkConformanceCounts(doc.conformance, violations);
  checkPackages(doc.packages, violations);
  const ageDays = checkGenerated(doc.generated, options, violations);
  const onlyStale = violations.length > 0 && violations.every((v) => v.rule === 'generated.stale');
  return {
    status: violations.length === 0 ? 'verified' : onlyStale ? 'unverified' : 'invalid',
    violations,
    ...(ageDays === undefined ? {} : { ageDays }),
  };
}

/** The verification as text lines, one per violation, ending with the status line. */
export function formatVerifyResult(source: string, result: VerifyResult): string {
  const lines = result.violations.map((v) => `  ${v.rule} at ${v.path}: ${v.message}`);
  const age = result.ageDays === undefined ? '' : `, generated ${result.ageDays.toFixed(1)} days ago`;
  if (result.status === 'verified') return `VERIFIED ${source}${age}: schema and rules hold`;
  const head =
    result.status === 'unverified'
      ? `UNVERIFIED ${source}${age}: stale, to be treated as unverified, not as evidence`
      : `INVALID ${source}${age}: ${result.violations.length} violation(s)`;
  return [head, ...lines].join('\n');
}

type Counted = Record<string, unknown>;

function checkConformanceCounts(conformance: unknown, out: Violation[]): void {
  if (!conformance || typeof conformance !== 'object') return;
  walkCounts(conformance as Counted, '/conformance', out);
  // A per-implementation breakdown must add up to the counts it breaks down.
  const c = conformance as Counted;
  checkBreakdown('/conformance/acvpByImplementation', c.acvp, c.acvpByImplementation, out);
  for (const [key, value] of Object.entries(c)) {
    if (value && typeof value === 'object')
      checkBreakdown(`/conformance/${key}/byImplementation`, value, (value as Counted).byImplementation, out);
  }
}

// Every object under conformance that states counts: {total, passed, failed, skipped} (acvp and the
// like), {checks, passed, failed, skipped} (protocol) or {checks, failed, ...} (interoperability).
function walkCounts(node: Counted, path: string, out: Violation[]): void {
  if ('total' in node) checkTotal(path, node, 'total', out);
  else if ('checks' in node && 'passed' in node) checkTotal(path, node, 'checks', out);
  else if ('checks' in node) checkInterop(path, node, out);
  for (const [key, value] of Object.entries(node)) {
    if (value && typeof value === 'object' && !Array.isArray(value))
      walkCounts(value as Counted, `${path}/${key}`, out);
  }
}

function checkBreakdown(path: string, whole: unknown, parts: unknown, out: Violation[]): void {
  if (!whole || typeof whole !== 'object' || !parts || typeof parts !== 'object') return;
  const w = whole as Counted;
  for (const key of ['total', 'passed', 'failed', 'skipped'] as const) {
    const values = Object.values(parts as Counted).map((p) =>
      p && typeof p === 'object' ? num((p as Counted)[key]) : undefined,
    );
    if (values.some((v) => v === undefined) || num(w[key]) === undefined) continue; // reported by walkCounts
    const sum = (values as number[]).reduce((a, b) => a + b, 0);
    if (sum !== w[key])
      out.push({
        rule: 'counts.consistent',
        path,
        message: `the implementations' ${key} add up to ${sum}, but the stated ${key} is ${String(w[key])}`,
      });
  }
}

// total (or checks, for conformance.protocol) = passed + failed + skipped, each stated separately.
function checkTotal(path: string, v: Counted, totalKey: 'total' | 'checks', out: Violation[]): void {
  const total = num(v[totalKey]);
  const passed = num(v.passed);
  const failed = num(v.failed);
  const skipped = v.skipped === undefined ? 0 : num(v.skipped);
  if (total === undefined || passed === undefined || failed === undefined || skipped === undefined) {
    out.push({
      rule: 'counts.consistent',
      path,
      message: `${totalKey}, passed, failed and skipped must be non-negative integers`,
    });
    return;
  }
  const [t, p, f, s] = [total, passed, failed, skipped];
  if (t === p + f + s) {
    if (s === 0 && typeof v.skippedReason === 'string' && v.skippedReason.trim() !== '') {
      out.push({
        rule: 'skipped.not_a_pass',
        path,
        message: `skippedReason says cases were skipped, but skipped is ${v.skipped === undefined ? 'absent' : 0}: were they counted as passes?`,
      });
    }
    return;
  }
  if (s > 0 && t === p + f) {
    out.push({
      rule: 'skipped.not_a_pass',
      path,
      message: `${totalKey} ${t} = passed ${p} + failed ${f} although skipped is ${s}: the skipped cases are counted as passes`,
    });
    return;
  }
  out.push({
    rule: 'counts.consistent',
    path,
    message: `${totalKey} ${t} is not passed ${p} + failed ${f} + skipped ${s} = ${p + f + s}`,
  });
}

// interoperability: checks and failed required; failed cannot exceed checks; rows only with checks.
function checkInterop(path: string, v: Counted, out: Violation[]): void {
  const checks = num(v.checks);
  const failed = num(v.failed);
  const rows = v.rows === undefined ? undefined : num(v.rows);
  if (checks === undefined || failed === undefined) {
    out.push({ rule: 'counts.consistent', path, message: 'checks and failed must be non-negative integers' });
    return;
  }
  if (failed > checks)
    out.push({ rule: 'counts.consistent', path, message: `failed ${failed} exceeds checks ${checks}` });
  if (rows !== undefined && checks > 0 && rows === 0)
    out.push({ rule: 'counts.consistent', path, message: `${checks} checks in 0 rows` });
}

function checkPackages(packages: unknown, out: Violation[]): void {
  if (!Array.isArray(packages)) return;
  packages.forEach((p, i) => {
    if (p && typeof p === 'object' && 'provenance' in p && 'provenanceNote' in p) {
      out.push({
        rule: 'packages.provenance_exclusive',
        path: `/packages/${i}`,
        message: `${String((p as Counted).name)}: provenance and provenanceNote never both appear (provenanceNote stands instead of provenance)`,
      });
    }
  });
}

function checkGenerated(generated: unknown, options: VerifyOptions, out: Violation[]): number | undefined {
  const time = typeof generated === 'string' ? Date.parse(generated) : NaN;
  if (Number.isNaN(time)) return undefined; // the schema rule reports a missing or malformed date-time
  const now = (options.now ?? new Date()).getTime();
  const maxAgeDays = options.maxAgeDays ?? DEFAULT_MAX_AGE_DAYS;
  const ageDays = (now - time) / 86_400_000;
  if (ageDays > maxAgeDays) {
    out.push({
      rule: 'generated.stale',
      path: '/generated',
      message: `generated ${String(generated)} is ${ageDays.toFixed(1)} days old, more than ${maxAgeDays} (D-045)`,
    });
  } else if (time - now > FUTURE_TOLERANCE_MS) {
    out.push({
      rule: 'generated.future',
      path: '/generated',
      message: `generated ${String(generated)} is in the future`,
    });
  }
  return ageDays;
}

// The schema generated from specs/evidence.schema.json, compiled in ajv strict mode with its one
// extension keyword (x-decision) registered, as the spec checks compile it.
function compileSchema(): ValidateFunction {
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  ajv.addKeyword('x-decision');
  addFormats.default(ajv);
  return ajv.compile(pqcEvidenceSchema);
}

function num(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : undefined;
}

function schemaMessage(e: ErrorObject): string {
  const extra =
    e.keyword === 'additionalProperties'
      ? ` (${String((e.params as { additionalProperty?: string }).additionalProperty)})`
      : '';
  return `${e.message ?? e.keyword}${extra}`;
}
