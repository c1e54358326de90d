import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cells, mergeDocs, readResults, renderTable, writeDocs } from '../../scripts/bench/docs.ts';
import { BENCH_PROSE } from '../../scripts/bench/docs-prose.ts';
import { type BenchResult, figure, writeResult } from '../../scripts/bench/result.ts';

const MACHINE = {
  cores: 2,
  cpu: 'Test CPU',
  memoryGiB: 24,
  node: '26.10.0',
  openssl: '3.5.8',
  postgres: '15.18',
  date: '2026-11-24T21:00:00.000Z',
};

/** A fixture with a met, a missed and an info-only figure, and a growth plan section. */
const FIXTURE: BenchResult[] = [
  {
    bench: 'institutional',
    machine: MACHINE,
    figures: [
      figure('SVC-MLDSA added CPU / one verification', 1.65, 'x', { limit: 1.3, comparison: 'at-most' }),
      figure('POST /transfers accepted per second', 250, 'transfers/s', { limit: 200, comparison: 'at-least' }),
      figure('GET /accounts/{id} bearer, concurrency 32: p50', 12.3, 'ms'),
    ],
  },
  {
    bench: 'growth',
    machine: MACHINE,
    figures: [
      figure('statement page: p50 at 1000000 / p50 at 10000 rows', 1.1, 'x', { limit: 1.5, comparison: 'at-most' }),
    ],
    sections: [
      { title: 'statement page: EXPLAIN (ANALYZE, BUFFERS)', text: 'Limit  (actual time=0.05..0.06 rows=20 loops=1)' },
    ],
  },
];

const folder = mkdtempSync(path.join(tmpdir(), 'svckit-bench-docs-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

describe('benchmark results', () => {
  it('works out ratio and verdict from the target', () => {
    expect(figure('a', 1.65, 'x', { limit: 1.3, comparison: 'at-most' })).toMatchObject({ verdict: 'missed' });
    expect(figure('a', 1.3, 'x', { limit: 1.3, comparison: 'at-most' })).toMatchObject({ verdict: 'met', ratio: 1 });
    expect(figure('b', 150, 'req/s', { limit: 200, comparison: 'at-least' })).toMatchObject({
      verdict: 'missed',
      ratio: 0.75,
    });
    expect(figure('c', 3, 'ms')).toEqual({ name: 'c', value: 3, unit: 'ms', verdict: 'info-only' });
    // A limit of 0 has no ratio; one over it is missed.
    expect(figure('d', 0, 'gaps', { limit: 0, comparison: 'at-most' })).not.toHaveProperty('ratio');
    expect(figure('d', 2, 'gaps', { limit: 0, comparison: 'at-most' })).toMatchObject({ verdict: 'missed' });
    expect(cells(figure('d', 2, 'gaps', { limit: 0, comparison: 'at-most' }))).toEqual([
      '2 gaps',
      '≤ 0 gaps',
      '-',
      'missed',
    ]);
  });

  it('prints one row per figure with measured, limit, ratio and verdict', () => {
    const lines = renderTable(FIXTURE).split('\n');
    expect(lines[0]).toBe('| bench | figure | measured | limit | ratio | verdict |');
    expect(lines.slice(2)).toEqual([
      '| institutional | SVC-MLDSA added CPU / one verification | 1.65x | ≤ 1.30x | 1.27x | missed |',
      '| institutional | POST /transfers accepted per second | 250 transfers/s | ≥ 200 transfers/s | 1.25x | met |',
      '| institutional | GET /accounts/{id} bearer, concurrency 32: p50 | 12.3 ms | - | - | info-only |',
      '| growth | statement page: p50 at 1000000 / p50 at 10000 rows | 1.10x | ≤ 1.50x | 0.73x | met |',
    ]);
  });

  it('writes the page from the JSON files: marked generated, targets summarised, plans included', () => {
    for (const result of FIXTURE) writeResult(result, path.join(folder, `${result.bench}.json`));
    expect(readResults(folder).map((r) => r.bench)).toEqual(['growth', 'institutional']);
    const file = writeDocs(folder, path.join(folder, 'benchmarks.md'));
    const page = readFileSync(file, 'utf8');
    expect(page).toMatch(/generated .* do not edit/i);
    const targets = page.slice(page.indexOf('## Targets'), page.indexOf('\n## ', page.indexOf('## Targets') + 1));
    // Only figures with a target are in the summary; the missed one shows as missed.
    expect(targets).toContain(
      '| institutional | SVC-MLDSA added CPU / one verification | 1.65x | ≤ 1.30x | 1.27x | missed |',
    );
    expect(targets).toContain(
      '| growth | statement page: p50 at 1000000 / p50 at 10000 rows | 1.10x | ≤ 1.50x | 0.73x | met |',
    );
    expect(targets).not.toContain('info-only');
    expect(page).toContain('| GET /accounts/{id} bearer, concurrency 32: p50 | 12.3 ms | - | - | info-only |');
    expect(page).toContain('```text\nLimit  (actual time=0.05..0.06 rows=20 loops=1)\n```');
    expect(page).toContain('on 2 cores (Test CPU), 24 GiB, Node 26.10.0, OpenSSL 3.5.8, PostgreSQL 15.18.');
    // The prose moved from the hand-written page is kept.
    expect(page).toContain('One guarded statement per transfer');
  });

  it('merges one benchmark run into the page, keeping the other benchmarks as they were measured', () => {
    const page = path.join(folder, 'merged.md');
    writeDocs(folder, page);
    const before = readFileSync(page, 'utf8');
    const alone = mkdtempSync(path.join(tmpdir(), 'svckit-bench-merge-'));
    writeResult(
      {
        bench: 'growth',
        machine: { ...MACHINE, date: '2026-11-27T19:00:00.000Z' },
        figures: [
          figure('statement page: p50 at 1000000 / p50 at 10000 rows', 0.9, 'x', { limit: 1.5, comparison: 'at-most' }),
        ],
      },
      path.join(alone, 'growth.json'),
    );
    writeResult(
      {
        bench: 'packages',
        machine: MACHINE,
        figures: [figure('@svckit/sdk install: packages', 29, 'packages', { limit: 30, comparison: 'at-most' })],
      },
      path.join(alone, 'packages.json'),
    );
    mergeDocs(alone, page);
    const after = readFileSync(page, 'utf8');
    rmSync(alone, { recursive: true, force: true });
    // The institutional section and its target row are untouched; growth is replaced; packages is added.
    const section = (text: string, title: string) =>
      text.slice(text.indexOf(title), text.indexOf('\n## ', text.indexOf(title) + 1));
    const institutional = `## ${BENCH_PROSE.institutional!.title}`;
    expect(section(after, institutional).trim()).toBe(section(before, institutional).trim());
    expect(section(after, institutional)).toContain('One guarded statement per transfer');
    expect(after).toContain(
      '| institutional | SVC-MLDSA added CPU / one verification | 1.65x | ≤ 1.30x | 1.27x | missed |',
    );
    expect(after).toContain(
      '| growth | statement page: p50 at 1000000 / p50 at 10000 rows | 0.90x | ≤ 1.50x | 0.60x | met |',
    );
    expect(after).not.toContain('| growth | statement page: p50 at 1000000 / p50 at 10000 rows | 1.10x');
    expect(after).not.toContain('Limit  (actual time=0.05..0.06 rows=20 loops=1)');
    expect(after).toContain('| packages | @svckit/sdk install: packages | 29 packages | ≤ 30 packages | 0.97x | met |');
    expect(after).toContain('## The packages: `npm run bench -- packages`');
    expect(after.match(/^## /gm)?.length).toBe((before.match(/^## /gm)?.length ?? 0) + 1);
  });
});
