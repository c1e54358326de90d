// D-167: no pattern in a contract repeats a character class a thousand times or more; such fixed lengths are
// stated as minLength and maxLength beside a pattern of the characters, which generators handle without
// expanding the repetition (a regex-driven generator overflowed its stack on {6618}).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SPECS_DIR } from '../../src/paths.ts';

/** The patterns of a contract's text (YAML `pattern: …` lines and JSON `"pattern": "…"` members). */
function patterns(text: string): string[] {
  return [...text.matchAll(/^\s*pattern: (.+)$/gm), ...text.matchAll(/"pattern": "((?:[^"\\]|\\.)*)"/g)].map(
    (m) => m[1]!,
  );
}

/** The largest repetition count a pattern asks for ({n} or {n,m}). */
const largestRepeat = (pattern: string) =>
  Math.max(0, ...[...pattern.matchAll(/\{(\d+)(?:,(\d*))?\}/g)].map((m) => Number(m[2] || m[1])));

describe('contract patterns', () => {
  it('repeat nothing a thousand times or more', () => {
    const files = readdirSync(SPECS_DIR).filter((f) => /\.(yaml|json)$/.test(f));
    expect(files.length).toBeGreaterThanOrEqual(7);
    const found = files.flatMap((file) =>
      patterns(readFileSync(join(SPECS_DIR, file), 'utf8'))
        .filter((p) => largestRepeat(p) >= 1000)
        .map((p) => `${file}: ${p}`),
    );
    expect(found).toEqual([]);
  });

  it('the scan sees a long repetition', () => {
    expect(largestRepeat('^[0-9a-fA-F]{6618}$')).toBe(6618);
    expect(largestRepeat('^[0-9]{2,1200}$')).toBe(1200);
    expect(patterns('      pattern: ^[0-9a-f]{3904}$\n"pattern": "^0x[0-9a-f]{512}$"')).toEqual([
      '^[0-9a-f]{3904}$',
      '^0x[0-9a-f]{512}$',
    ]);
  });
});
