// The run's reports of generated checks (D-232) from a run against a faulty server: the JSON document's
// counts, coverage and score, credentials redacted, the JUnit file, the self-contained HTML rendered in
// headless Chromium (counts, a failure with its case and replay command, no request leaving the file), and
// `svckit replay` sending a stored case again as a separate process, by the command the report prints.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import type { FastifyInstance } from 'fastify';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runEngine } from '../../../conformance/engine/core/run.ts';
import type { EngineResult } from '../../../conformance/engine/core/types.ts';
import { toJson } from '../../../conformance/report/format.ts';
import type { RunReport } from '../../../conformance/report/model.ts';
import { REPORT_FILES, writeRunReports } from '../../../conformance/report/write.ts';
import type { CheckResult } from '../../../conformance/runner.ts';
import { SVCKIT_BIN } from '../../../src/paths.ts';
import { CHROMIUM, CHROMIUM_FLAGS } from '../../chromium.ts';
import { engineRunReport } from '../helpers/engine-report.ts';
import { faultServer, faultSpecsDir } from './fault-server.ts';

const run = promisify(execFile);
let app: FastifyInstance;
let origin: string;
let outDir: string;
let result: EngineResult;
let results: CheckResult[];
let report: RunReport;
const specsDir = faultSpecsDir();
const casesOf = (r: RunReport) => r.checks.flatMap((c) => c.failures ?? []);

beforeAll(async () => {
  let base: URL;
  ({ app, base } = await faultServer({ acceptsAboveMaximum: true, teapotAt: 3 }));
  origin = new URL('/', base).href;
  result = await runEngine(
    { bases: { explorer: base }, credentials: {} },
    {
      phases: ['examples', 'coverage', 'fuzz'],
      seed: 5,
      maxExamples: 40,
      surfaces: ['explorer'],
      specsDir,
    },
  );
  outDir = mkdtempSync(path.join(tmpdir(), 'svckit-engine-reports-'));
  ({ results, report } = engineRunReport(result, { out: outDir, base: origin }));
  await writeRunReports(report, results, { formats: ['json', 'junit', 'html'], outDir });
});

afterAll(async () => {
  await app?.close();
});

describe('the run reports of generated checks', () => {
  it('writes the JSON report with the case counts, requests, coverage and score', () => {
    const json = JSON.parse(readFileSync(path.join(outDir, REPORT_FILES.json), 'utf8')) as RunReport;
    expect(json).toEqual(JSON.parse(toJson(report)));
    expect(Object.keys(json.cases).sort()).toEqual(['failed', 'passed', 'skipped']);
    expect(json.cases.failed).toBeGreaterThan(0);
    expect(json.cases.passed).toBeGreaterThan(0);
    expect(json.requests).toBe(result.requests);
    expect(json.requests).toBeGreaterThan(40);
    expect(json.surfaces.explorer?.requests).toBe(result.requests);
    expect(json.coverage?.operations).toEqual({ covered: 1, total: 1 });
    expect(json.coverage?.responses).toEqual({ covered: 2, total: 2 });
    expect(json.score).toBeGreaterThan(0);
    expect(json.score).toBeLessThan(100);
    const ids = json.checks.filter((c) => c.status === 'failed').map((c) => c.id);
    expect(ids).toEqual(
      expect.arrayContaining(['generated.negative_data_rejection', 'generated.status_code_conformance']),
    );
    // A check fails exactly when one of its cases failed; the run's case counts are its checks' summed.
    for (const c of json.checks) expect(c.status === 'failed', c.id).toBe((c.cases?.failed ?? 0) > 0);
    expect(json.summary.failed).toBe(ids.length);
    expect(json.cases.failed).toBe(json.checks.reduce((n, c) => n + (c.cases?.failed ?? 0), 0));
    expect(json.surfaces.explorer?.cases).toEqual(json.cases);
  });

  it('redacts the credentials of a kept case in the report and its case file', async () => {
    const secret = 'svc_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
    const keyed: EngineResult = {
      ...result,
      tallies: result.tallies.map((t) => ({
        ...t,
        failures: t.failures.map((f) => ({
          ...f,
          request: { ...f.request, headers: { ...f.request.headers, authorization: `Bearer ${secret}` } },
        })),
      })),
    };
    const dir = mkdtempSync(path.join(tmpdir(), 'svckit-engine-redacted-'));
    const keyedReport = engineRunReport(keyed, { out: dir, base: origin });
    const written = await writeRunReports(keyedReport.report, keyedReport.results, {
      formats: ['json', 'junit', 'html'],
      outDir: dir,
    });
    const kept = casesOf(keyedReport.report);
    expect(kept.length).toBeGreaterThan(0);
    expect(written).toHaveLength(3 + kept.length);
    for (const file of written) expect(readFileSync(file, 'utf8'), file).not.toContain(secret);
    // The first kept case is the first failure of the first failing check; its other headers are kept as sent.
    const check = keyedReport.report.checks.find((c) => c.failures?.length);
    const first = result.tallies.find((t) => `generated.${t.check}` === check?.id)?.failures[0];
    expect(first?.request.headers.authorization).toBeUndefined();
    expect(kept[0]?.request.headers).toEqual({ ...first?.request.headers, authorization: 'Bearer [redacted]' });
    const caseFile = JSON.parse(readFileSync(path.join(dir, kept[0]?.caseFile ?? 'missing'), 'utf8'));
    expect(caseFile.request.headers.authorization).toBe('Bearer [redacted]');
  });

  it('writes JUnit with a failure per failing check, and one case file per kept failure', () => {
    const xml = readFileSync(path.join(outDir, REPORT_FILES.junit), 'utf8');
    expect(xml).toContain('name="generated.status_code_conformance"');
    expect(xml.match(/<failure /g)?.length).toBe(report.summary.failed);
    expect(report.summary.failed).toBeGreaterThanOrEqual(2);
    const kept = casesOf(report);
    expect(kept.map((f) => f.caseFile)).toEqual(kept.map((_, i) => `cases/${i + 1}.json`));
    expect(readdirSync(path.join(outDir, 'cases')).sort()).toEqual(
      kept.map((f) => path.basename(f.caseFile ?? '')).sort(),
    );
  });

  it.skipIf(!existsSync(CHROMIUM))(
    'renders the HTML report in headless Chromium: counts, coverage and a failure with its case and replay command',
    async () => {
      const browser = await chromium.launch({ executablePath: CHROMIUM, args: [...CHROMIUM_FLAGS] });
      try {
        const page = await browser.newPage();
        const external: string[] = [];
        page.on('request', (r) => {
          if (!r.url().startsWith('file:')) external.push(r.url());
        });
        await page.goto(pathToFileURL(path.join(outDir, REPORT_FILES.html)).href);
        expect(await page.textContent('#passed')).toBe(String(report.summary.passed));
        expect(await page.textContent('#failed')).toBe(String(report.summary.failed));
        expect(await page.textContent('#requests')).toBe(String(result.requests));
        expect(await page.textContent('#score')).toBe(String(report.score));
        const { passed, failed, skipped } = report.cases;
        expect(await page.textContent('.facts')).toContain(
          `cases ${passed} passed, ${failed} failed, ${skipped} skipped`,
        );
        // The explorer's row: its cases, requests, and the contract's one operation and two responses covered.
        expect(result.coverage.explorer?.responses).toEqual({ 'GET /items 200': true, 'GET /items 400': true });
        const explorer = page.locator('#surfaces tbody tr', { has: page.locator('th', { hasText: 'explorer' }) });
        expect(await explorer.locator('[data-label="cases"]').textContent()).toBe(
          `${passed} passed, ${failed} failed, ${skipped} skipped`,
        );
        expect(await explorer.locator('[data-label="requests"]').textContent()).toBe(String(result.requests));
        expect(await explorer.locator('[data-label="operations"]').textContent()).toBe('1 / 1 (100 %)');
        expect(await explorer.locator('[data-label="responses"]').textContent()).toBe('2 / 2 (100 %)');
        // The failure: listed first, with its kept case (limit 3 gets the undocumented 418) and its replay command.
        const check = report.checks.find((c) => c.id === 'generated.status_code_conformance');
        const kept = check?.failures?.[0];
        const failure = page.locator('article.failure', { hasText: 'generated.status_code_conformance' });
        expect(await failure.count()).toBe(1);
        await expect(failure.isVisible()).resolves.toBe(true);
        expect(await failure.locator('pre.case').first().textContent()).toContain('"query:limit": "3"');
        expect(kept?.replay).toBe(`svckit replay ${outDir}/${kept?.caseFile} --base ${origin}`);
        expect(await failure.locator('.case .cmd code').first().textContent()).toBe(kept?.replay);
        expect(external).toEqual([]);
      } finally {
        await browser.close();
      }
    },
  );

  it('replays a stored case by the command the report prints: the answer and the verdict, exit 1 while it fails', async () => {
    const check = report.checks.find((c) => c.id === 'generated.status_code_conformance');
    const [svckit, replay, ...args] = (check?.failures?.[0]?.replay ?? '').split(' ');
    expect([svckit, replay]).toEqual(['svckit', 'replay']);
    const failed = await run(process.execPath, [SVCKIT_BIN, 'replay', ...args, '--specs', specsDir, '--yes']).catch(
      (e) => e,
    );
    expect(failed.code).toBe(1);
    expect(failed.stdout).toContain('HTTP 418');
    expect(failed.stdout).toContain('FAIL generated.status_code_conformance: HTTP 418 is not documented');
    const usage = await run(process.execPath, [
      SVCKIT_BIN,
      'replay',
      args[0] ?? '',
      '--base',
      'http://example.com/',
    ]).catch((e) => e);
    expect(usage.code).toBe(2);
  });
});
