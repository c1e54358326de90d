/**
 * The `evidence` document surface: evidence documents generated from specs/evidence.schema.json (draft
 * 2020-12) and fed to `evidence verify` (src/evidence/verify.ts) — in process for every case, and through
 * the real command (`svckit evidence verify <file> --json`) for a sample. The verifier checks the schema
 * and then rules the schema does not state (spec "Evidence document (F)", D-045): counts add up, a skipped
 * case is not a pass, provenance and provenanceNote exclusive (also the schema's `not`), `generated` not
 * stale and not in the future. Valid documents are drawn from the schema and then made to respect those
 * rules (D-195); invalid ones are the schema's coverage variants (each must be refused by the schema part,
 * naming the field) and one case per rule (refused by that rule).
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import fc from 'fast-check';
import { SVCKIT_BIN } from '../../../src/paths.ts';
import { type VerifyResult, verifyEvidence } from '../../../src/evidence/verify.ts';
import { DEFAULT_MAX_AGE_DAYS } from '../../../src/evidence/defaults.ts';
import { schemaErrors } from '../core/ajv.ts';
import { arbitraryOf, mergeAllOf } from '../core/arbitrary.ts';
import type { Phase } from '../core/cases.ts';
import { resolveRefs, type Schema } from '../core/schema.ts';
import type { SurfaceCoverage } from '../core/coverage.ts';
import { type DocumentAnswer, type DocumentCase, type DocumentResult, tallyBook } from '../core/documents.ts';
import { failsFor, variantsOf } from '../core/variants.ts';

/** The verifier's signature (a fault-injection test passes a broken one). */
export type EvidenceVerifier = typeof verifyEvidence;

/** Options of {@link runEvidenceCases}. */
export interface EvidenceRunOptions {
  phases: readonly Phase[];
  seed: number;
  /** Fuzz documents. */
  maxExamples: number;
  /** Directory of the contracts. */
  specsDir: string;
  /** The verifier under test (default verifyEvidence). */
  verify?: EvidenceVerifier;
  /** Cases also sent through `svckit evidence verify` (default 3: a valid one, a schema and a rule refusal). */
  cliSample?: number;
}

/** What a case expects of `evidence verify`. */
type Expect =
  | { status: 'verified' }
  | { status: 'invalid'; rule: 'schema'; at: string; keyword: string }
  | { status: 'invalid' | 'unverified'; rule: string };

/** One evidence case before it is judged. */
interface EvidenceCase {
  reason: string;
  document: unknown;
  expect: Expect;
}

/** The evidence schema with its `$ref`s resolved (and without `$id`, so ajv compiles it beside the spec's). */
export function evidenceSchema(specsDir: string): Schema {
  const raw = JSON.parse(readFileSync(join(specsDir, 'evidence.schema.json'), 'utf8')) as Schema;
  const { $id: _id, $schema: _s, $defs: _d, ...rest } = resolveRefs(raw, raw) as Schema;
  return rest;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const int = (v: unknown) => (typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : 0);

/**
 * Makes a schema-valid document respect the verifier's rules (D-195): `generated` `ageS` seconds before
 * `nowMs`; every count object adds up (total or checks = passed + failed + skipped); skippedReason only with
 * skipped > 0; interoperability failed ≤ checks and rows > 0 when there are checks. The schema's `not` keeps
 * provenance and provenanceNote apart already.
 */
export function respectRules(document: Obj, nowMs: number, ageS: number): Obj {
  const doc = structuredClone(document);
  doc.generated = new Date(nowMs - ageS * 1000).toISOString();
  const conformance = doc.conformance;
  if (isObj(conformance)) {
    const acvp = conformance.acvp;
    if (isObj(acvp)) {
      acvp.total = int(acvp.passed) + int(acvp.failed) + int(acvp.skipped);
      if (int(acvp.skipped) === 0) delete acvp.skippedReason;
    }
    const protocol = conformance.protocol;
    if (isObj(protocol)) protocol.checks = int(protocol.passed) + int(protocol.failed) + int(protocol.skipped);
    const interop = conformance.interoperability;
    if (isObj(interop)) {
      if (int(interop.failed) > int(interop.checks)) interop.checks = interop.failed;
      if (interop.rows === 0 && int(interop.checks) > 0) interop.rows = 1;
    }
  }
  return doc;
}

/** The arbitrary of valid documents: drawn from the schema, made to respect the rules, checked by ajv. */
export function documentArbitrary(schema: Schema, nowMs: number): fc.Arbitrary<Obj> {
  // Up to 29 days old: inside D-045's 30 days with a day to spare for a long run.
  const age = fc.integer({ min: 0, max: (DEFAULT_MAX_AGE_DAYS - 1) * 86_400 });
  return fc
    .tuple(arbitraryOf(schema, { maxItems: 2 }), age)
    .map(([doc, ageS]) => respectRules(doc as Obj, nowMs, ageS))
    .filter((doc) => schemaErrors(schema, doc).length === 0);
}

/** One case per rule beyond the schema, each built on a valid document. */
export function ruleCases(base: Obj, nowMs: number): EvidenceCase[] {
  const withConformance = (key: string, value: Obj) => ({
    ...base,
    conformance: { ...(isObj(base.conformance) ? base.conformance : {}), [key]: value },
  });
  const packages = Array.isArray(base.packages) ? base.packages : [];
  const first = (isObj(packages[0]) ? packages[0] : {}) as Obj;
  return [
    {
      reason: 'conformance.acvp total 5 is not passed 2 + failed 1 + skipped 1',
      document: withConformance('acvp', { total: 5, passed: 2, failed: 1, skipped: 1 }),
      expect: { status: 'invalid', rule: 'counts.consistent' },
    },
    {
      reason: 'conformance.protocol checks 3 = passed 3 + failed 0 while 2 are skipped',
      document: withConformance('protocol', { checks: 3, passed: 3, failed: 0, skipped: 2 }),
      expect: { status: 'invalid', rule: 'skipped.not_a_pass' },
    },
    {
      reason: 'conformance.interoperability failed 4 exceeds checks 2',
      document: withConformance('interoperability', { checks: 2, failed: 4 }),
      expect: { status: 'invalid', rule: 'counts.consistent' },
    },
    {
      reason: 'packages/0 carries provenance and provenanceNote',
      document: {
        ...base,
        packages: [
          { ...first, provenance: 'https://provenance.example/a', provenanceNote: 'none' },
          ...packages.slice(1),
        ],
      },
      expect: { status: 'invalid', rule: 'packages.provenance_exclusive' },
    },
    {
      reason: `generated ${DEFAULT_MAX_AGE_DAYS + 1} days ago (stale, D-045)`,
      document: { ...base, generated: new Date(nowMs - (DEFAULT_MAX_AGE_DAYS + 1) * 86_400_000).toISOString() },
      expect: { status: 'unverified', rule: 'generated.stale' },
    },
    {
      reason: 'generated one hour in the future',
      document: { ...base, generated: new Date(nowMs + 3_600_000).toISOString() },
      expect: { status: 'invalid', rule: 'generated.future' },
    },
  ];
}

/** The schema's coverage variants of a valid document, each confirmed by ajv. */
export function schemaCases(schema: Schema, base: Obj, nowMs: number): EvidenceCase[] {
  const out: EvidenceCase[] = [];
  for (const v of variantsOf(schema, base)) {
    const errors = schemaErrors(schema, v.value);
    if (v.valid ? errors.length > 0 : !failsFor(errors, v.keyword)) continue;
    if (!v.valid) {
      out.push({
        reason: v.reason,
        document: v.value,
        expect: { status: 'invalid', rule: 'schema', at: v.at, keyword: v.keyword },
      });
      continue;
    }
    // A boundary the rules constrain (a count, `generated`) is made to respect them; it must still verify,
    // and the value it sets must survive.
    const fixed = isObj(v.value) ? respectRules(v.value, nowMs, 0) : v.value;
    if (JSON.stringify(valueAt(fixed, v.at)) === JSON.stringify(valueAt(v.value, v.at)) || v.at === '/generated')
      out.push({ reason: v.reason, document: v.at === '/generated' ? v.value : fixed, expect: { status: 'verified' } });
  }
  return out;
}

function valueAt(doc: unknown, at: string): unknown {
  return at
    .split('/')
    .slice(1)
    .reduce<unknown>((node, key) => (node && typeof node === 'object' ? (node as Obj)[key] : undefined), doc);
}

/** Whether a schema violation names the field a variant spoiled (its pointer, or its name under its parent). */
export function namesField(result: VerifyResult, at: string, keyword: string): boolean {
  const name = at.split('/').at(-1) ?? '';
  const parent = at.slice(0, at.lastIndexOf('/')) || '/';
  return result.violations.some(
    (v) =>
      v.rule === 'schema' &&
      (v.path === (at || '/') ||
        ((keyword === 'required' || keyword === 'additionalProperties') &&
          v.path === parent &&
          v.message.includes(name))),
  );
}

/** The problem of a verification against what the case expects (undefined: as expected). */
function problemOf(c: EvidenceCase, result: VerifyResult): string | undefined {
  const listed = result.violations.map((v) => `${v.rule} at ${v.path}: ${v.message}`).join('; ');
  const expect = c.expect;
  if (expect.status === 'verified')
    return result.status === 'verified' ? undefined : `${result.status}, expected verified: ${listed}`;
  if (result.status !== expect.status)
    return `${result.status}, expected ${expect.status}${listed ? `: ${listed}` : ''}`;
  if (!result.violations.some((v) => v.rule === expect.rule)) return `no ${expect.rule} violation: ${listed}`;
  if ('at' in expect && !namesField(result, expect.at, expect.keyword))
    return `the schema violations do not name ${expect.at}: ${listed}`;
  return undefined;
}

const answerOf = (result: VerifyResult): DocumentAnswer => ({
  accepted: result.status === 'verified',
  stage: result.violations[0]?.rule === 'schema' ? 'schema' : 'verifier',
  ...(result.violations[0] ? { code: result.violations[0].rule } : {}),
  message: result.violations.map((v) => `${v.rule} at ${v.path}: ${v.message}`).join('; ') || result.status,
});

/** Every keyword of the schema at every instance location: `<pointer> <keyword>` (evidence coverage). */
export function schemaKeywords(schema: Schema, at = ''): string[] {
  const s = mergeAllOf(schema);
  const out: string[] = [];
  for (const k of ['type', 'enum', 'const', 'format', 'pattern', 'minimum', 'maximum', 'minItems', 'maxItems'])
    if (k in s) out.push(`${at} ${k}`);
  for (const name of (s.required as string[] | undefined) ?? []) out.push(`${at}/${name} required`);
  if (s.additionalProperties === false) out.push(`${at}/unexpectedProperty additionalProperties`);
  for (const [name, sub] of Object.entries((s.properties ?? {}) as Record<string, Schema>))
    if (typeof sub === 'object') out.push(...schemaKeywords(sub, `${at}/${name}`));
  if (s.items && typeof s.items === 'object') out.push(...schemaKeywords(s.items as Schema, `${at}/0`));
  return out;
}

/** Empty coverage: the document, the schema's keywords (as responses) and its properties (as parameters). */
export function emptyEvidenceCoverage(schema: Schema): SurfaceCoverage {
  const cov: SurfaceCoverage = { operations: { 'evidence document': false }, responses: {}, parameters: {} };
  for (const k of schemaKeywords(schema)) {
    cov.responses[k] = false;
    const at = k.slice(0, k.lastIndexOf(' '));
    if (!at.endsWith('/unexpectedProperty') && at !== '') cov.parameters[at] = false;
  }
  return cov;
}

/** Pointers of every value in `doc`, for parameter coverage. */
function pointersOf(doc: unknown, at = ''): string[] {
  if (Array.isArray(doc)) return doc.length ? [at, ...pointersOf(doc[0], `${at}/0`)] : [at];
  if (isObj(doc)) return [at, ...Object.entries(doc).flatMap(([k, v]) => pointersOf(v, `${at}/${k}`))];
  return [at];
}

/** Runs `svckit evidence verify <file> --json` on each document; the results by index. */
async function verifyThroughCli(documents: unknown[]): Promise<(VerifyResult | string)[]> {
  const dir = await mkdtemp(join(tmpdir(), 'svckit-evidence-cases-'));
  try {
    return await Promise.all(
      documents.map(async (doc, i) => {
        const file = join(dir, `${i}.json`);
        await writeFile(file, JSON.stringify(doc));
        const run = promisify(execFile);
        try {
          const { stdout } = await run(process.execPath, [SVCKIT_BIN, 'evidence', 'verify', file, '--json'], {
            timeout: 120_000,
          });
          return JSON.parse(stdout) as VerifyResult;
        } catch (error) {
          const e = error as { code?: number; stdout?: string; message: string };
          // Exit 1 is a verdict (a violation); its JSON is on stdout. Anything else is the command failing.
          if (e.code === 1 && e.stdout) return JSON.parse(e.stdout) as VerifyResult;
          return `svckit evidence verify failed: ${e.message.slice(0, 300)}`;
        }
      }),
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Runs the phases: valid and invalid documents judged in process, a sample also through the command. */
export async function runEvidenceCases(options: EvidenceRunOptions): Promise<DocumentResult> {
  const verify = options.verify ?? verifyEvidence;
  const schema = evidenceSchema(options.specsDir);
  const book = tallyBook('evidence', [
    'evidence_valid_verified',
    'evidence_schema_refused',
    'evidence_rule_refused',
    'evidence_cli_agrees',
  ]);
  const coverage = emptyEvidenceCoverage(schema);
  const timings: DocumentResult['timings'] = [];
  const nowMs = Date.now();
  const sample: { phase: Phase; c: EvidenceCase; result: VerifyResult }[] = [];
  const toCase = (phase: Phase, c: EvidenceCase): DocumentCase => ({
    surface: 'evidence',
    operation: 'evidence document',
    phase,
    kind: c.expect.status === 'verified' ? 'positive' : 'negative',
    reason: c.reason,
    input: { params: {}, body: c.document },
    method: 'VERIFY',
    authenticated: false,
  });
  const judge = (phase: Phase, c: EvidenceCase) => {
    const result = verify(c.document, { now: new Date(nowMs) });
    const problem = problemOf(c, result);
    const check =
      c.expect.status === 'verified'
        ? 'evidence_valid_verified'
        : c.expect.rule === 'schema'
          ? 'evidence_schema_refused'
          : 'evidence_rule_refused';
    book.verdict(check, toCase(phase, c), answerOf(result), problem);
    if (problem !== undefined) return;
    if (c.expect.status === 'verified') {
      coverage.operations['evidence document'] = true;
      for (const p of pointersOf(c.document)) if (p in coverage.parameters) coverage.parameters[p] = true;
    } else if ('at' in c.expect) coverage.responses[`${c.expect.at} ${c.expect.keyword}`] = true;
    if (sample.length < (options.cliSample ?? 3) && !sample.some((s) => checkOf(c) === checkOf(s.c)))
      sample.push({ phase, c, result });
  };
  for (const phase of options.phases) {
    const t0 = performance.now();
    let cases = 0;
    if (phase === 'examples') {
      // The contract's examples, judged on the day they were generated (they are stale afterwards, D-045).
      for (const [i, example] of examplesOf(options.specsDir).entries()) {
        const generated = Date.parse(String((example as Obj).generated));
        const result = verify(example, { now: new Date(generated) });
        const c: EvidenceCase = { reason: `contract example ${i}`, document: example, expect: { status: 'verified' } };
        const problem = problemOf(c, result);
        book.verdict('evidence_valid_verified', toCase(phase, c), answerOf(result), problem);
        if (problem === undefined) coverage.operations['evidence document'] = true;
        cases += 1;
      }
    } else if (phase === 'coverage' || phase === 'fuzz') {
      const docs = fc.sample(documentArbitrary(schema, nowMs), {
        seed: options.seed,
        numRuns: phase === 'coverage' ? 8 : options.maxExamples,
      });
      const picks = fc.sample(fc.nat(), { seed: options.seed + 1, numRuns: docs.length });
      const seen = new Set<string>();
      docs.forEach((doc, k) => {
        const all = [
          { reason: 'a generated valid document', document: doc, expect: { status: 'verified' } as Expect },
          ...schemaCases(schema, doc, nowMs),
          ...ruleCases(doc, nowMs),
        ];
        // coverage: each document and every variant, once per reason; fuzz: half as drawn, half one variant.
        const chosen =
          phase === 'coverage'
            ? all.filter((c, j) => j === 0 || (!seen.has(c.reason) && seen.add(c.reason)))
            : k % 2 === 0
              ? all.slice(0, 1)
              : [all[(picks[k] ?? 0) % all.length] as EvidenceCase];
        for (const c of chosen) judge(phase, c);
        cases += chosen.length;
      });
    }
    timings.push({ phase, cases, ms: Math.round(performance.now() - t0) });
  }
  // The sample through the real command: its verdict must be the in-process one.
  const cli = await verifyThroughCli(sample.map((s) => s.c.document));
  sample.forEach((s, i) => {
    const out = cli[i] as VerifyResult | string;
    const problem =
      typeof out === 'string'
        ? out
        : out.status !== s.result.status ||
            JSON.stringify(out.violations.map((v) => v.rule)) !== JSON.stringify(s.result.violations.map((v) => v.rule))
          ? `the command says ${out.status} (${out.violations.map((v) => v.rule).join(', ')}), in process ${s.result.status} (${s.result.violations.map((v) => v.rule).join(', ')})`
          : undefined;
    book.verdict(
      'evidence_cli_agrees',
      toCase(s.phase, s.c),
      typeof out === 'string' ? { accepted: false, stage: 'cli', message: out } : answerOf(out),
      problem,
    );
  });
  return { surface: 'evidence', tallies: [...book.tallies.values()], coverage, timings };
}

/** The `examples` of the evidence schema. */
function examplesOf(specsDir: string): unknown[] {
  const raw = JSON.parse(readFileSync(join(specsDir, 'evidence.schema.json'), 'utf8')) as { examples?: unknown[] };
  return raw.examples ?? [];
}

function checkOf(c: EvidenceCase): string {
  return c.expect.status === 'verified' ? 'valid' : c.expect.rule === 'schema' ? 'schema' : 'rule';
}
