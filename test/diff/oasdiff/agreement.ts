// Agreement of svckit diff with oasdiff on a sample of oasdiff's own OpenAPI breaking-change fixtures (D-247).
// The fixtures and manifest.json are data from oasdiff (Apache-2.0, test/diff/oasdiff/README.md).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { diffContract } from '../../../conformance/diff/index.ts';
import { type Level, LEVELS } from '../../../conformance/diff/model.ts';

const HERE = path.dirname(fileURLToPath(import.meta.url));

/** One fixture pair: the oasdiff test it comes from, its rule and level, and the svckit rules that match it. */
export type Sample = {
  oasdiffTest: string;
  base: string;
  revision: string;
  oasdiffRule: string;
  oasdiffLevel: 'ERR' | 'WARN' | 'INFO';
  svckitRules: string[];
};

/** The sample, as listed in manifest.json. */
export const SAMPLES: Sample[] = JSON.parse(readFileSync(path.join(HERE, 'manifest.json'), 'utf8'));

const OASDIFF_LEVEL: Record<Sample['oasdiffLevel'], Level> = { ERR: 'breaking', WARN: 'warning', INFO: 'info' };

/** What svckit diff says of one pair: the most severe level among the matching rules it reports. */
export function judge(sample: Sample): {
  level: Level | undefined;
  outcome: 'agrees' | 'differs' | 'missed' | 'not covered';
} {
  const read = (file: string) => ({
    name: 'sample.openapi.yaml',
    format: 'openapi' as const,
    document: parse(readFileSync(path.join(HERE, 'fixtures', file), 'utf8')),
  });
  const changes = diffContract(read(sample.base), read(sample.revision)).filter((c) =>
    sample.svckitRules.includes(c.rule),
  );
  const level = LEVELS.find((l) => changes.some((c) => c.level === l));
  if (sample.svckitRules.length === 0) return { level, outcome: 'not covered' };
  if (level === undefined) return { level, outcome: 'missed' };
  return { level, outcome: level === OASDIFF_LEVEL[sample.oasdiffLevel] ? 'agrees' : 'differs' };
}

/** The agreement table docs/diff-rules.md shows, one row per oasdiff rule. */
export function agreementTable(): string {
  const rows = SAMPLES.map((sample) => {
    const { level, outcome } = judge(sample);
    const ours = sample.svckitRules.length ? sample.svckitRules.map((r) => `\`${r}\``).join(', ') : '–';
    return `| \`${sample.oasdiffRule}\` | ${OASDIFF_LEVEL[sample.oasdiffLevel]} | ${ours} | ${level ?? 'not reported'} | ${outcome} |`;
  });
  const counts = new Map<string, number>();
  for (const sample of SAMPLES) {
    const { outcome } = judge(sample);
    counts.set(outcome, (counts.get(outcome) ?? 0) + 1);
  }
  const summary = ['agrees', 'differs', 'missed', 'not covered'].map((o) => `${counts.get(o) ?? 0} ${o}`).join(', ');
  return [
    `${SAMPLES.length} pairs: ${summary}.`,
    '',
    '| oasdiff rule | oasdiff level | svckit rule | svckit level | outcome |',
    '|---|---|---|---|---|',
    ...rows,
  ].join('\n');
}
