// House rule 7: the checks page is generated from the catalogue, and stays in step with it.
import { describe, expect, it } from 'vitest';
import { committedChecksPage, renderChecksPage } from '../../scripts/check-docs.ts';

describe('docs/conformance-checks.md', () => {
  it('is what the catalogue generates (run `npx tsx scripts/check-docs.ts --write`)', () => {
    expect(committedChecksPage()).toBe(renderChecksPage());
  });
});
