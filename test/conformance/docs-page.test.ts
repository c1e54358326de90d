// House rule 7: the checks page is generated from the catalogue, and stays in step with it.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { everyCheck } from '../../scripts/spec-quotes.ts';
import { committedChecksPage, renderChecksPage } from '../../scripts/check-docs.ts';

describe('docs/conformance-checks.md', () => {
  it('is what the catalogue generates (run `npx tsx scripts/check-docs.ts --write`)', () => {
    expect(committedChecksPage()).toBe(renderChecksPage());
  });

  it('has the size the README states', () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const checks = everyCheck();
    const generated = checks.filter((c) => c.origin === 'generated').length;
    expect(readme).toContain(
      `(generated from the registry: ${checks.length - generated} hand-written checks, and ${generated} generated from the contracts)`,
    );
  });
});
