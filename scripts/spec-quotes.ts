/**
 * `npx tsx scripts/spec-quotes.ts [--write]`: collects the interface-specification quotes the
 * conformance checks cite into conformance/spec-quotes.json (D-133), checking each against the
 * specification beside the clone (../shared/spec/interface-specification.md, or the path in SVCKIT_SPEC).
 * Without --write it only reports whether the committed file is up to date (exit 1 when not).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Catalogue, normaliseWhitespace, SPEC_QUOTES_URL } from '../conformance/catalogue.ts';
import { buildCatalogue } from '../conformance/checks/index.ts';
import { receiverSideChecks } from '../conformance/receiver-side/index.ts';
import { repoPath } from '../src/paths.ts';

/** The specification the quotes come from, when it is beside this clone. */
export const SPEC_PATH = process.env.SVCKIT_SPEC ?? repoPath('../shared/spec/interface-specification.md');

/** Every check the harness knows: the catalogue and the receiver-side checks (D-171), validated against `specPath`. */
export function everyCheck(specPath?: string) {
  // The receiver-side checks are built per receiver; a placeholder one gives their sources.
  const receiverSide = new Catalogue({ specPath });
  for (const check of receiverSideChecks({ url: new URL('https://receiver.invalid/'), secret: '' }))
    receiverSide.register(check);
  return [...buildCatalogue({ specPath }).list(), ...receiverSide.list()];
}

/** The sorted, de-duplicated, whitespace-normalised quotes of every check, validated against `specPath`. */
export function collectSpecQuotes(specPath: string = SPEC_PATH): string[] {
  const checks = everyCheck(specPath);
  const quotes = checks.flatMap((c) => ('quote' in c.source ? [normaliseWhitespace(c.source.quote)] : []));
  return [...new Set(quotes)].sort();
}

/** The file's text for a list of quotes. */
export function specQuotesFile(quotes: string[]): string {
  return `${JSON.stringify({ source: 'interface-specification.md', decision: 'D-133', quotes }, null, 2)}\n`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (!existsSync(SPEC_PATH)) {
    console.error(`spec-quotes: ${SPEC_PATH} not found (set SVCKIT_SPEC to the interface specification)`);
    process.exit(2);
  }
  const text = specQuotesFile(collectSpecQuotes());
  const path = fileURLToPath(SPEC_QUOTES_URL);
  if (process.argv.includes('--write')) {
    writeFileSync(path, text);
    console.log(`wrote ${path}`);
  } else if (readFileSync(path, 'utf8') !== text) {
    console.error(`${path} is out of date: run npx tsx scripts/spec-quotes.ts --write`);
    process.exit(1);
  } else console.log(`${path} is up to date`);
}
