// The traceability matrix (conformance/traceability/, docs/traceability.md): every substantive line of the
// specification is traced to checks or carries a reason, every name in the map exists, and a check that
// quotes the specification traces the line its quote comes from.
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { normaliseWhitespace } from '../../conformance/catalogue.ts';
import { buildMatrix, loadSpecLines, loadTrace } from '../../conformance/traceability/matrix.ts';
import { specLines } from '../../conformance/traceability/spec-lines.ts';
import { everyCheck, SPEC_PATH } from '../../scripts/spec-quotes.ts';
import { currentMatrix, TRACEABILITY_PAGE, traceabilityPage } from '../../scripts/traceability.ts';

const HAS_SPEC = existsSync(SPEC_PATH);
const checks = everyCheck();

describe('traceability from the specification to the checks', () => {
  it('names only known lines, checks and operations, and gives every line an entry or a table', () => {
    expect(currentMatrix().problems).toEqual([]);
  });

  it('covers at least 90% of the substantive lines, each uncovered one with a reason', () => {
    const { matrix } = currentMatrix();
    expect(matrix.total).toBe(loadSpecLines().length);
    expect(matrix.covered / matrix.total).toBeGreaterThanOrEqual(0.9);
    for (const row of matrix.rows)
      if (row.checks.length + row.generated.length === 0) expect(row.reason, `line ${row.line.line}`).toBeTruthy();
  });

  it('has every quoting check trace the line its quote comes from', () => {
    const { matrix } = currentMatrix();
    const missing: string[] = [];
    for (const check of checks) {
      if (!('quote' in check.source)) continue;
      const quote = normaliseWhitespace(check.source.quote);
      const from = matrix.rows.filter((r) => r.line.text.includes(quote) && r.line.kind !== 'table-header');
      if (from.length === 0) continue; // a quote spanning lines is matched by the spec-quotes test instead
      if (!from.some((r) => r.checks.includes(check.id))) missing.push(`${check.id} → line ${from[0]?.line.line}`);
    }
    expect(missing).toEqual([]);
  });

  it('reports an unknown check, an unknown line and a missing entry as problems', () => {
    const lines = loadSpecLines();
    const trace = { ...loadTrace() };
    const first = lines.find((l) => l.kind === 'text' && l.id in trace);
    if (!first) throw new Error('no traced running-text line');
    trace[first.id] = { checks: ['no.such.check'] };
    trace['nowhere/00000000'] = { checks: [] };
    const dropped = lines.find((l) => l.kind === 'table-row' && l.id in trace && l.id !== first.id);
    if (!dropped) throw new Error('no traced table row');
    delete trace[dropped.id];
    const { problems } = buildMatrix(lines, trace, { checks: new Set(checks.map((c) => c.id)), operations: new Set() });
    expect(problems.some((p) => p.includes('unknown check no.such.check'))).toBe(true);
    expect(problems.some((p) => p.includes('unknown line nowhere/00000000'))).toBe(true);
    expect(problems.some((p) => p.includes(`${dropped.id} (line ${dropped.line}) has no entry`))).toBe(true);
  });

  it('keeps docs/traceability.md up to date', () => {
    const page = readFileSync(fileURLToPath(TRACEABILITY_PAGE), 'utf8');
    expect(page).toBe(
      traceabilityPage(
        currentMatrix().matrix,
        checks.map((c) => c.id),
      ),
    );
  });

  it.skipIf(!HAS_SPEC)(
    'carries the lines of the specification as they are (skipped: ../shared/spec/interface-specification.md is not beside this clone)',
    () => {
      expect(loadSpecLines()).toEqual(specLines(readFileSync(SPEC_PATH, 'utf8')));
    },
  );
});
