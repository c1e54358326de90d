/** The CI gates of a run (D-232): `--min-score` and `--min-coverage`, each met or not, with why. */
import type { ReportedGate, RunReport } from '../../../conformance/report/model.ts';
import type { Gates } from './options.ts';

const percent = (r: { covered: number; total: number }) => (r.total === 0 ? 0 : (100 * r.covered) / r.total);
const round = (n: number) => Math.round(n * 10) / 10;

/** Each gate asked for, judged on the report; a gate with no figure to judge (no generated checks ran) fails. */
export function evaluateGates(report: RunReport, gates: Gates): ReportedGate[] {
  const out: ReportedGate[] = [];
  if (gates.minScore !== undefined) {
    const score = report.score;
    out.push(
      score === undefined
        ? {
            name: 'min-score',
            ok: false,
            message: `no score: no generated check ran (give --phases), bar ${gates.minScore}`,
          }
        : {
            name: 'min-score',
            ok: score >= gates.minScore,
            message: `score ${score} ${score >= gates.minScore ? '≥' : '<'} ${gates.minScore}`,
          },
    );
  }
  for (const [figure, bar] of Object.entries(gates.minCoverage) as [
    'operations' | 'responses' | 'parameters',
    number,
  ][]) {
    const ratio = report.coverage?.[figure];
    if (!ratio) {
      out.push({
        name: `min-coverage ${figure}`,
        ok: false,
        message: `no coverage: no generated check ran, bar ${bar}%`,
      });
      continue;
    }
    const value = round(percent(ratio));
    out.push({
      name: `min-coverage ${figure}`,
      ok: value >= bar,
      message: `${figure} ${ratio.covered}/${ratio.total} = ${value}% ${value >= bar ? '≥' : '<'} ${bar}%`,
    });
  }
  return out;
}
