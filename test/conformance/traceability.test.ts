// Traceability from the interface specification to the checks (D-133 data; docs/traceability.md).
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  readSpecLines,
  readTraceabilityMap,
  SPEC_LINES_URL,
  specLines,
  tracedBy,
} from '../../conformance/traceability.ts';
import { SPEC_PATH } from '../../scripts/spec-quotes.ts';
import {
  allChecks,
  coverage,
  renderTraceabilityPage,
  specLinesFile,
  TRACEABILITY_PAGE,
} from '../../scripts/traceability.ts';

const HAS_SPEC = existsSync(SPEC_PATH);
const lines = readSpecLines();
const map = readTraceabilityMap();
const checks = allChecks();

describe('traceability', () => {
  it('docs/traceability.md is what the script generates (run `npx tsx scripts/traceability.ts --write`)', () => {
    expect(readFileSync(TRACEABILITY_PAGE, 'utf8')).toBe(renderTraceabilityPage(lines, checks, map));
  });

  it('the map names only lines and checks that exist', () => {
    const refs = new Set(lines.map((l) => l.ref));
    const ids = new Set(checks.map((c) => c.id));
    expect(Object.keys(map.traces).filter((id) => !ids.has(id))).toEqual([]);
    expect(Object.values(map.traces).flatMap((list) => list.filter((ref) => !refs.has(ref)))).toEqual([]);
    expect(Object.keys(map.uncovered).filter((ref) => !refs.has(ref))).toEqual([]);
  });

  it('every line is traced by a check or listed as uncovered with a reason and a note, never both', () => {
    const { byLine } = coverage(lines, checks, map);
    for (const line of lines) {
      const traced = (byLine.get(line.ref) ?? []).length > 0;
      const listed = map.uncovered[line.ref];
      expect({ ref: line.ref, traced, listed: Boolean(listed) }).toEqual({
        ref: line.ref,
        traced: !listed,
        listed: !traced,
      });
      if (listed) {
        expect(['untestable', 'decision', 'not-yet']).toContain(listed.reason);
        expect(listed.note.length).toBeGreaterThan(20);
      }
    }
  });

  it('every check of the service (surfaces A to F) traces at least one line', () => {
    const silent = checks.filter((c) => c.surface !== 'specs' && tracedBy(c, lines, map).length === 0);
    expect(silent.map((c) => c.id)).toEqual([]);
  });

  it('at least 90% of the substantive lines are traced', () => {
    expect(lines.length).toBeGreaterThan(200);
    expect(coverage(lines, checks, map).percent).toBeGreaterThanOrEqual(90);
  });

  it('references are stable: editing one line changes no other reference', () => {
    const text = [
      '## Errors',
      '',
      'All errors return JSON.',
      '| 404 | resource not found |',
      '### Limits',
      'at most 512 characters',
    ].join('\n');
    const before = specLines(text);
    const after = specLines(text.replace('All errors return JSON.', 'All errors return JSON objects.'));
    expect(before.map((l) => l.ref)).toHaveLength(3);
    expect(after[0]!.ref).not.toBe(before[0]!.ref);
    expect(after.slice(1).map((l) => l.ref)).toEqual(before.slice(1).map((l) => l.ref));
    expect(before[2]!.ref).toMatch(/^errors\/limits#[0-9a-f]{8}$/);
  });

  it.skipIf(!HAS_SPEC)(
    'conformance/spec-lines.json holds the specification as it is (skipped: ../shared/spec/interface-specification.md is not beside this clone)',
    () => {
      expect(readFileSync(SPEC_LINES_URL, 'utf8')).toBe(specLinesFile(specLines(readFileSync(SPEC_PATH, 'utf8'))));
    },
  );
});
