// svckit diff against a sample of oasdiff's published OpenAPI fixtures (D-247): the agreement table in
// docs/diff-rules.md is the one this run computes, and every pair the sample maps to a svckit rule is reported.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../src/paths.ts';
import { agreementTable, judge, SAMPLES } from './oasdiff/agreement.ts';

describe('svckit diff on oasdiff fixtures', () => {
  it('docs/diff-rules.md shows the agreement this run measures', () => {
    const page = readFileSync(path.join(REPO_ROOT, 'docs/diff-rules.md'), 'utf8');
    const shown = page.split('<!-- oasdiff-agreement:start -->\n')[1]?.split('\n<!-- oasdiff-agreement:end -->')[0];
    expect(shown).toBe(agreementTable());
  });

  it('reports every pair the sample maps to one of its rules', () => {
    expect(SAMPLES.length).toBeGreaterThanOrEqual(40);
    const missed = SAMPLES.filter((sample) => judge(sample).outcome === 'missed').map((sample) => sample.oasdiffRule);
    expect(missed).toEqual([]);
  });
});
