// docs/grafana-dashboard.json is built from the metric names of src/server/metrics/registry.ts (D-281): every
// metric a panel queries exists in a stack's registry, and every metric of the registry has a panel.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { StackMetrics } from '../../src/server/metrics/registry.ts';

type Panel = { id: number; type: string; title: string; targets?: { expr: string }[] };
const dashboard = JSON.parse(readFileSync(new URL('../../docs/grafana-dashboard.json', import.meta.url), 'utf8')) as {
  panels: Panel[];
  templating: { list: { name: string; query?: unknown; definition?: string }[] };
};
const registry = new StackMetrics().registry;
const queried = dashboard.panels.filter((p) => p.type !== 'row');

/** The metric a series name belongs to: a histogram's _bucket, _count and _sum series are its own. */
function metricOf(series: string): string {
  const base = series.replace(/_(bucket|count|sum)$/, '');
  return base !== series && registry.getSingleMetric(base)?.constructor.name === 'Histogram' ? base : series;
}

const expressions = [
  ...queried.flatMap((p) => (p.targets ?? []).map((t) => ({ where: p.title, expr: t.expr }))),
  ...dashboard.templating.list.flatMap((v) =>
    v.definition ? [{ where: `variable ${v.name}`, expr: v.definition }] : [],
  ),
];
const names = (expr: string) => [...expr.matchAll(/\bsvckit_[a-z0-9_]+/g)].map((m) => m[0]);

describe('the Grafana dashboard (docs/grafana-dashboard.json)', () => {
  it('has panels with queries and unique ids', () => {
    expect(queried.length).toBeGreaterThan(10);
    for (const panel of queried) expect(panel.targets?.length, panel.title).toBeGreaterThan(0);
    const ids = dashboard.panels.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it.each(expressions)('$where queries only metrics of the registry', ({ expr }) => {
    expect(names(expr).length, expr).toBeGreaterThan(0);
    for (const name of names(expr))
      expect(registry.getSingleMetric(metricOf(name)), `${name} in ${expr}`).toBeDefined();
  });

  it('has a panel for every metric of the registry', () => {
    const used = new Set(expressions.flatMap(({ expr }) => names(expr).map(metricOf)));
    const missing = registry
      .getMetricsAsArray()
      .map((m) => m.name)
      .filter((name) => !used.has(name));
    expect(missing).toEqual([]);
  });
});
