// The engine's reports from a run against a faulty server: the JSON document's shape, the JUnit file, the
// self-contained HTML rendered in headless Chromium (summary counts and a failure's case), and
// `svckit replay` sending a stored case again as a separate process.
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
import {
  buildEngineJson,
  type EngineJsonReport,
  redactWire,
  writeEngineReports,
} from '../../../conformance/report/engine.ts';
import { SVCKIT_BIN } from '../../../src/paths.ts';
import { CHROMIUM, CHROMIUM_FLAGS } from '../../chromium.ts';
import { faultServer, faultSpecsDir } from './fault-server.ts';

const run = promisify(execFile);
let app: FastifyInstance;
let base: URL;
let outDir: string;
let report: EngineJsonReport;
const specsDir = faultSpecsDir();

beforeAll(async () => {
  ({ app, base } = await faultServer({ acceptsAboveMaximum: true, teapotAt: 3 }));
  const result = await runEngine(
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
  await writeEngineReports(result, outDir);
  report = buildEngineJson(result);
});

afterAll(async () => {
  await app?.close();
});

describe('engine reports', () => {
  it('writes the JSON report with summary, coverage and score', () => {
    const json = JSON.parse(readFileSync(path.join(outDir, 'conformance-engine.json'), 'utf8')) as EngineJsonReport;
    expect(Object.keys(json.summary).sort()).toEqual(['failed', 'passed', 'requests', 'skipped']);
    expect(json.summary.failed).toBeGreaterThan(0);
    expect(json.summary.passed).toBeGreaterThan(0);
    expect(json.summary.requests).toBeGreaterThan(40);
    expect(json.coverage.operations).toEqual({ covered: 1, total: 1 });
    expect(json.coverage.responses).toEqual({ covered: 2, total: 2 });
    expect(json.coverage.score).toBeGreaterThan(0);
    expect(json.coverage.score).toBeLessThan(100);
    const ids = json.checks.filter((c) => c.failed > 0).map((c) => c.id);
    expect(ids).toEqual(
      expect.arrayContaining(['generated.negative_data_rejection', 'generated.status_code_conformance']),
    );
    expect(json.summary.failed).toBe(json.checks.reduce((n, c) => n + c.failed, 0));
  });

  it('redacts the credentials of a stored request', () => {
    const secret = 'svc_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
    const wire = redactWire({
      method: 'GET',
      url: 'https://svc.example/wallet/api/v1/accounts',
      headers: { authorization: `Bearer ${secret}`, accept: 'application/json' },
    });
    expect(JSON.stringify(wire)).not.toContain(secret);
    expect(wire.headers.authorization).toBe('Bearer [redacted]');
    expect(wire.headers.accept).toBe('application/json');
  });

  it('writes JUnit with a failure per failing named check, and one case file per kept failure', () => {
    const xml = readFileSync(path.join(outDir, 'conformance-engine.junit.xml'), 'utf8');
    expect(xml).toContain('name="generated.status_code_conformance"');
    expect(xml.match(/<failure /g)?.length).toBe(report.checks.filter((c) => c.failed > 0).length);
    const kept = report.checks.reduce((n, c) => n + c.failures.length, 0);
    expect(readdirSync(path.join(outDir, 'cases')).length).toBe(kept);
  });

  it.skipIf(!existsSync(CHROMIUM))(
    'renders the HTML report in headless Chromium: summary counts and a failure case',
    async () => {
      const browser = await chromium.launch({ executablePath: CHROMIUM, args: [...CHROMIUM_FLAGS] });
      try {
        const page = await browser.newPage();
        const external: string[] = [];
        page.on('request', (r) => {
          if (!r.url().startsWith('file:')) external.push(r.url());
        });
        await page.goto(pathToFileURL(path.join(outDir, 'conformance-engine.html')).href);
        expect(await page.textContent('#passed')).toBe(String(report.summary.passed));
        expect(await page.textContent('#failed')).toBe(String(report.summary.failed));
        expect(await page.textContent('#requests')).toBe(String(report.summary.requests));
        const failure = page.locator('.fail', { hasText: 'generated.status_code_conformance' }).first();
        await expect(failure.isVisible()).resolves.toBe(true);
        expect(await failure.locator('pre.case').textContent()).toContain('"query:limit": "3"');
        expect(await failure.textContent()).toContain('svckit replay cases/');
        expect(await page.locator('table.matrix td.ok').count()).toBe(2);
        expect(external).toEqual([]);
      } finally {
        await browser.close();
      }
    },
  );

  it('replays a stored case with `svckit replay`: prints the answer and the verdict, exit 1 while it fails', async () => {
    const check = report.checks.find((c) => c.id === 'generated.status_code_conformance');
    const caseFile = path.join(outDir, check?.failures[0]?.caseFile ?? 'missing');
    const origin = new URL('/', base).href;
    const failed = await run(process.execPath, [
      SVCKIT_BIN,
      'replay',
      caseFile,
      '--base',
      origin,
      '--specs',
      specsDir,
      '--yes',
    ]).catch((e) => e);
    expect(failed.code).toBe(1);
    expect(failed.stdout).toContain('HTTP 418');
    expect(failed.stdout).toContain('FAIL generated.status_code_conformance: HTTP 418 is not documented');
    const usage = await run(process.execPath, [SVCKIT_BIN, 'replay', caseFile, '--base', 'http://example.com/']).catch(
      (e) => e,
    );
    expect(usage.code).toBe(2);
  });
});
