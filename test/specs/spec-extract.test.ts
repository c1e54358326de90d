// D-133: the committed extract of the interface specification equals what the specification says now,
// whenever it is beside the clone (a user's clone has no ../shared; the other spec tests read the extract).
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  EXTRACT_URL,
  extractSpec,
  SECTION_HEADINGS,
  SPEC_PATH,
  readSpecExtract,
  specExtractFile,
} from './spec-extract.ts';

describe('test/specs/spec-extract.json', () => {
  it('holds the 28 "not shown" statements and every section the coverage tests read', () => {
    const extract = readSpecExtract();
    expect(extract.notShown).toHaveLength(28);
    expect(Object.keys(extract.sections)).toEqual([...SECTION_HEADINGS]);
    for (const heading of SECTION_HEADINGS) expect(extract.sections[heading]!.length, heading).toBeGreaterThan(0);
  });

  it.skipIf(!existsSync(SPEC_PATH))(
    'equals the extract of the interface specification (skipped: ../shared/spec/interface-specification.md is not beside this clone)',
    () => {
      expect(readFileSync(EXTRACT_URL, 'utf8')).toBe(specExtractFile(extractSpec(readFileSync(SPEC_PATH, 'utf8'))));
    },
  );
});
