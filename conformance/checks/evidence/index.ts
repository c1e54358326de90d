// The evidence document checks (surface F, ids `evidence.*`; spec "GET {site_url}/.well-known/pqc-evidence.json
// returns the Evidence document"): how the site serves it, then the document judged by the verifier of
// `svckit evidence verify` (src/evidence/verify.ts), one check per rule of the spec it enforces.
import type { Check } from '../../catalogue.ts';
import { verifyEvidence, type EvidenceRule } from '../../../src/evidence/verify.ts';
import { DEFAULT_MAX_AGE_DAYS } from '../../../src/evidence/defaults.ts';
import { checkDefiner, outcome, verdict, type CheckDefinition } from '../define.ts';
import { EVIDENCE_DOCUMENT_PATH, evidenceDocument, notServed } from './support.ts';

/** Defines a surface-F check (needs: the site origin). */
const defineCheck = checkDefiner({ surface: 'F', needs: ['site'] });

/** Options of evidenceChecks. */
export interface EvidenceCheckOptions {
  /** How long to wait for a site that answers 503 with Retry-After (default EVIDENCE_WAIT_MS, D-164). */
  waitMs?: number;
}

/** Every `evidence.*` check. */
export function evidenceChecks(options: EvidenceCheckOptions = {}): Check[] {
  /** A check that the verifier finds no violation of `rules` in the served document. */
  const ruleCheck = (definition: Omit<CheckDefinition, 'run'> & { rules: readonly EvidenceRule[]; passed: string }) => {
    const { rules, passed, ...rest } = definition;
    return defineCheck({
      ...rest,
      async run(ctx) {
        const fetched = await evidenceDocument(ctx.target, options.waitMs);
        const problem = notServed(fetched);
        if (problem) return verdict([problem], fetched.res);
        const broken = verifyEvidence(fetched.res.json, { now: new Date(ctx.clock.now()) }).violations.filter((v) =>
          rules.includes(v.rule),
        );
        const found = outcome(
          broken.map((v) => `${v.rule} at ${v.path}: ${v.message}`),
          passed,
          broken,
        );
        return { ...found, request: fetched.res.request };
      },
    });
  };
  return [
    defineCheck({
      id: 'evidence.document.content_type',
      title: `GET {site_url}/${EVIDENCE_DOCUMENT_PATH} answers 200 with an application/json body that parses`,
      source: { quote: 'a machine-readable JSON statement of the post-quantum algorithms the vendor implements' },
      async run(ctx) {
        const fetched = await evidenceDocument(ctx.target, options.waitMs);
        const problem = notServed(fetched);
        const type = fetched.res.headers['content-type'] ?? '';
        const problems = problem
          ? [problem]
          : /^application\/json\b/.test(type)
            ? []
            : [`content-type expected application/json, got ${JSON.stringify(type)}`];
        return verdict(problems, fetched.res, `served as ${type}`);
      },
    }),
    ruleCheck({
      id: 'evidence.document.schema_valid',
      title: 'the document validates against specs/evidence.schema.json (closed objects per D-045)',
      source: {
        quote: 'The evidence document is described by a JSON Schema (draft 2020-12) and carries a generated timestamp.',
      },
      rules: ['schema'],
      passed: 'the document validates against its schema',
    }),
    ruleCheck({
      id: 'evidence.document.counts',
      title:
        'every count states passed, failed and skipped separately and adds up; no skipped case is counted as a pass',
      source: { quote: 'counts are stated separately; a skipped or not-applicable case is not a pass' },
      rules: ['counts.consistent', 'skipped.not_a_pass'],
      passed: 'the counts add up and skips are stated separately',
    }),
    ruleCheck({
      id: 'evidence.document.provenance_exclusive',
      title: 'no packages item carries both provenance and provenanceNote',
      source: {
        quote:
          'In a packages item, provenance and provenanceNote never both appear (provenanceNote stands instead of provenance).',
      },
      rules: ['packages.provenance_exclusive'],
      passed: 'provenance and provenanceNote never appear together',
    }),
    ruleCheck({
      id: 'evidence.document.fresh',
      title: `generated is at most ${DEFAULT_MAX_AGE_DAYS} days old (D-045) and not in the future`,
      source: { quote: 'a stale document is to be treated as unverified, not as evidence' },
      rules: ['generated.stale', 'generated.future'],
      passed: `generated within the last ${DEFAULT_MAX_AGE_DAYS} days`,
    }),
  ];
}
