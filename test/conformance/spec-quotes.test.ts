// D-133: the checks' spec quotes are committed data (conformance/spec-quotes.json), so the catalogue
// reads no file outside the repository; they are checked verbatim against the interface specification
// whenever it is beside the clone.
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { normaliseWhitespace, readSpecQuotes, SPEC_QUOTES_URL } from '../../conformance/catalogue.ts';
import { buildCatalogue } from '../../conformance/checks/index.ts';
import { SPEC_PATH, specQuotesFile } from '../../scripts/spec-quotes.ts';

const HAS_SPEC = existsSync(SPEC_PATH);

describe('conformance/spec-quotes.json', () => {
  it('lists exactly the quotes the checks cite, sorted and normalised', () => {
    const cited = [
      ...new Set(
        buildCatalogue()
          .list()
          .flatMap((c) => ('quote' in c.source ? [normaliseWhitespace(c.source.quote)] : [])),
      ),
    ].sort();
    expect(readSpecQuotes()).toEqual(cited);
    expect(readFileSync(SPEC_QUOTES_URL, 'utf8')).toBe(specQuotesFile(cited));
  });

  it.skipIf(!HAS_SPEC)(
    'every quote appears verbatim in the interface specification (skipped: ../shared/spec/interface-specification.md is not beside this clone)',
    () => {
      const spec = normaliseWhitespace(readFileSync(SPEC_PATH, 'utf8'));
      const missing = readSpecQuotes().filter((q) => !spec.includes(q));
      expect(missing).toEqual([]);
      // The catalogue built against the specification itself accepts every check.
      expect(() => buildCatalogue({ specPath: SPEC_PATH })).not.toThrow();
    },
  );
});
