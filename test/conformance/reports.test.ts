import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { formatConsole } from '../../conformance/report/console.ts';
import { buildRunReport } from '../../conformance/report/build.ts';
import { redactBody, toJson } from '../../conformance/report/format.ts';
import { harRecorder, ndjsonWriter } from '../../conformance/report/stream.ts';
import type { RunEvent } from '../../conformance/events.ts';
import { escapeXmlAttr, formatJUnit } from '../../conformance/report/junit.ts';
import { writeRunReports } from '../../conformance/report/write.ts';
import type { CheckResult } from '../../conformance/runner.ts';
import { remoteTarget } from '../../conformance/targets/remote.ts';
import { parseXml, type XmlElement } from './helpers/xml.ts';

const QUOTE = { quote: 'missing or invalid credentials give 401' };

const RESULTS: CheckResult[] = [
  {
    id: 'institutional.auth.missing_credentials',
    title: 'a request without credentials gets 401',
    surface: 'A',
    source: QUOTE,
    severity: 'MUST',
    status: 'passed',
    durationMs: 12,
  },
  {
    id: 'institutional.auth.bad_bearer',
    title: 'a wrong <bearer> & "key" gets 401',
    surface: 'A',
    source: QUOTE,
    severity: 'MUST',
    status: 'failed',
    reason: 'status <200> & body "ok", expected 401',
    request: {
      method: 'GET',
      url: 'https://svc.example/wallet/api/v1/accounts/acc_01JD3Z8Q4V6WQ8N2K7M5R9T3XA',
      headers: { Authorization: 'Bearer svc_secretsecret', Accept: 'application/json' },
    },
    expected: { status: 401 },
    actual: { status: 200, balance: 10n ** 18n },
    retries: ['GET /wallet/api/v1/accounts/acc_01JD3Z8Q4V6WQ8N2K7M5R9T3XA: HTTP 429; retry 1 after 1000 ms'],
    durationMs: 30,
  },
  {
    id: 'webhooks.retry.schedule',
    title: 'retries follow the schedule',
    surface: 'B',
    source: { decision: 'D-052' },
    severity: 'SHOULD',
    status: 'skipped',
    reason: "needs capability 'reference', which the remote target does not provide",
    durationMs: 0,
  },
];

const clock = { now: () => Date.UTC(2026, 10, 21, 9, 30) };

describe('console summary', () => {
  const text = formatConsole(RESULTS);
  const lines = text.split('\n');

  it('prints PASS|FAIL|SKIP <id> — <title> per check and ends with the exact count line', () => {
    expect(lines[0]).toBe('PASS institutional.auth.missing_credentials — a request without credentials gets 401');
    expect(lines).toContain('FAIL institutional.auth.bad_bearer — a wrong <bearer> & "key" gets 401');
    expect(lines).toContain('SKIP webhooks.retry.schedule — retries follow the schedule');
    expect(lines[lines.length - 1]).toBe('1 passed, 1 failed, 1 skipped');
  });

  it('shows the failed request and what differed, with the bearer key redacted', () => {
    expect(text).toContain('request: GET https://svc.example/wallet/api/v1/accounts/acc_01JD3Z8Q4V6WQ8N2K7M5R9T3XA');
    expect(text).toContain('Authorization: Bearer [redacted]');
    expect(text).not.toContain('svc_secretsecret');
    expect(text).toContain('expected: {"status":401}');
    expect(text).toContain('actual: {"status":200,"balance":"1000000000000000000"}');
  });

  it('prints the count line alone for no results', () => {
    expect(formatConsole([])).toBe('0 passed, 0 failed, 0 skipped');
  });
});

describe('JUnit XML', () => {
  const xml = formatJUnit(RESULTS);
  let root: XmlElement;
  beforeAll(() => {
    root = parseXml(xml);
  });
  const byName = (el: XmlElement, name: string) => el.children.filter((c) => c.name === name);

  it('is well-formed, with one testsuite per surface and one testcase per check', () => {
    expect(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n')).toBe(true);
    expect(root.name).toBe('testsuites');
    expect(root.attrs).toMatchObject({ tests: '3', failures: '1', skipped: '1', errors: '0', time: '0.042' });
    const suites = byName(root, 'testsuite');
    expect(suites.map((s) => s.attrs.name)).toEqual(['A institutional REST API', 'B webhooks']);
    expect(suites[0]?.attrs).toMatchObject({ tests: '2', failures: '1', skipped: '0' });
    expect(byName(suites[0] as XmlElement, 'testcase').map((c) => c.attrs.name)).toEqual([
      'institutional.auth.missing_credentials',
      'institutional.auth.bad_bearer',
    ]);
  });

  it('reports a failure with its message and details, escaping <, & and "', () => {
    const failed = byName(byName(root, 'testsuite')[0] as XmlElement, 'testcase')[1] as XmlElement;
    const failure = byName(failed, 'failure')[0];
    expect(failure?.attrs.message).toBe('status <200> & body "ok", expected 401');
    expect(failure?.attrs.type).toBe('MUST');
    expect(failure?.text).toContain('request: GET https://svc.example/');
    expect(failure?.text).not.toContain('svc_secretsecret');
    const title = byName(byName(failed, 'properties')[0] as XmlElement, 'property').find(
      (p) => p.attrs.name === 'title',
    );
    expect(title?.attrs.value).toBe('a wrong <bearer> & "key" gets 401');
    expect(xml).toContain('message="status &lt;200&gt; &amp; body &quot;ok&quot;, expected 401"');
  });

  it('reports a skip as <skipped message=...>, not as a pass', () => {
    const skippedCase = byName(byName(root, 'testsuite')[1] as XmlElement, 'testcase')[0] as XmlElement;
    expect(byName(skippedCase, 'skipped')[0]?.attrs.message).toBe(
      "needs capability 'reference', which the remote target does not provide",
    );
    expect(byName(skippedCase, 'failure')).toHaveLength(0);
  });

  it('is checked by a parser that rejects malformed XML', () => {
    expect(() => parseXml('<a><b></a></b>')).toThrow();
    expect(() => parseXml('<a x="1 & 2"/>')).toThrow();
    expect(() => parseXml('<a x="1" x="2"/>')).toThrow();
    expect(() => parseXml('<a>x</a><b/>')).toThrow();
    expect(() => parseXml('<a>')).toThrow();
    expect(parseXml('<a x="&lt;&#10;"><b/>t&amp;</a>')).toEqual({
      name: 'a',
      attrs: { x: '<\n' },
      children: [{ name: 'b', attrs: {}, children: [], text: '' }],
      text: 't&',
    });
  });

  it('keeps line breaks in attributes and replaces characters XML cannot carry', () => {
    expect(escapeXmlAttr('a\nb\tc')).toBe('a&#10;b&#9;c');
    expect(escapeXmlAttr('nul\u0000 esc\u001b')).toBe('nul\uFFFD esc\uFFFD');
    const odd = formatJUnit([{ ...RESULTS[1], reason: 'line1\nline2 \u0007 ]]> <x/>' } as CheckResult]);
    expect(
      byName(byName(byName(parseXml(odd), 'testsuite')[0] as XmlElement, 'testcase')[0] as XmlElement, 'failure')[0]
        ?.attrs.message,
    ).toBe('line1\nline2 \uFFFD ]]> <x/>');
  });
});

const context = (target?: ReturnType<typeof remoteTarget>) => ({
  ...(target ? { target } : {}),
  command: 'svckit conformance --base https://svc.example --admin-token *** --report json',
  replayCheck: (id: string) => `svckit conformance --base https://svc.example --only ${id}`,
  replayCase: (file: string) => `svckit replay reports/${file} --base https://svc.example`,
  startedAt: clock.now(),
  finishedAt: clock.now() + 1500,
  phases: [],
  waited: { answers: 2, ms: 1200 },
  requests: 7,
  interrupted: false,
});

describe('the run report (D-232)', () => {
  it('states the run, its target, counts and every check, with credentials redacted and bigint as text', () => {
    const target = remoteTarget({ base: 'https://svc.example' });
    const report = JSON.parse(toJson(buildRunReport({ results: RESULTS }, context(target))));
    expect(report).toMatchObject({
      kind: 'svckit-conformance-report',
      version: 1,
      startedAt: '2026-11-21T09:30:00.000Z',
      finishedAt: '2026-11-21T09:30:01.500Z',
      durationMs: 1500,
      requests: 7,
      waited: { answers: 2, ms: 1200 },
      summary: { passed: 1, failed: 1, skipped: 1 },
      interrupted: false,
    });
    expect(report.target).toEqual({
      kind: 'remote',
      base: 'https://svc.example/',
      caCert: false,
      capabilities: ['base', 'rpc', 'specs'],
    });
    expect(report.checks).toHaveLength(3);
    expect(report.checks[1].request.headers.Authorization).toBe('Bearer [redacted]');
    expect(report.checks[1].actual.balance).toBe('1000000000000000000');
    expect(report.checks[1].retries).toEqual([expect.stringMatching(/HTTP 429; retry 1 after 1000 ms$/)]);
    expect(report.checks[1].replay).toBe(
      'svckit conformance --base https://svc.example --only institutional.auth.bad_bearer',
    );
    expect(report.checks[2]).toMatchObject({
      id: 'webhooks.retry.schedule',
      origin: 'hand-written',
      surface: 'webhooks',
      status: 'skipped',
      source: 'D-052',
    });
    expect(report.surfaces.institutional.checks).toEqual({ passed: 1, failed: 1, skipped: 0 });
  });

  it('records a null target when none is given', () => {
    expect(buildRunReport({ results: [] }, context()).target).toBeNull();
  });

  it('redacts the secret fields of bodies: issued tokens, webhook secrets, private keys', () => {
    const body = JSON.stringify({ id: 'k1', token: 'svc_abcdefghijklmnop', nested: [{ secret: 'whsec' }], name: 'x' });
    expect(JSON.parse(redactBody(body))).toEqual({
      id: 'k1',
      token: '[redacted]',
      nested: [{ secret: '[redacted]' }],
      name: 'x',
    });
    expect(redactBody('plain svc_abcdefghijklmnop text')).toBe('plain svc_[redacted] text');
  });
});

describe('writeRunReports', () => {
  it('writes only the requested formats into outDir and returns their paths', async () => {
    const outDir = join(mkdtempSync(join(tmpdir(), 'svckit-reports-')), 'nested');
    const report = buildRunReport({ results: RESULTS }, context());
    const paths = await writeRunReports(report, RESULTS, { formats: ['junit', 'json'], outDir });
    expect(paths).toEqual([join(outDir, 'conformance.junit.xml'), join(outDir, 'conformance.json')]);
    expect(parseXml(readFileSync(paths[0] as string, 'utf8')).name).toBe('testsuites');
    expect(JSON.parse(readFileSync(paths[1] as string, 'utf8')).summary).toEqual({ passed: 1, failed: 1, skipped: 1 });
    expect(existsSync(join(outDir, 'conformance.html'))).toBe(false);
  });
});

describe('the event stream writers', () => {
  const sent: RunEvent = {
    type: 'case_sent',
    at: '2026-11-21T09:30:00.000Z',
    n: 1,
    check: 'institutional.auth.bad_bearer',
    source: 'hand-written',
    durationMs: 12,
    rateLimited: false,
    request: {
      method: 'POST',
      url: 'https://svc.example/admin/v1/api-keys?x=1',
      headers: { authorization: 'Bearer svcadm_secret', 'content-type': 'application/json' },
      body: '{"name":"k"}',
    },
    response: {
      status: 201,
      headers: { 'content-type': 'application/json' },
      body: '{"id":"k1","token":"svc_abcdefghijkl"}',
    },
  };

  it('writes NDJSON as events arrive, one redacted event per line, kept when the run is cut short', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'svckit-ndjson-')), 'run.ndjson');
    const writer = ndjsonWriter(path);
    writer.sink({ type: 'run_started', at: sent.at, checks: ['a.b'], phases: [] });
    writer.sink(sent);
    const lines = readFileSync(path, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.type)).toEqual(['run_started', 'case_sent']);
    expect(lines[1].request.headers.authorization).toBe('Bearer [redacted]');
    expect(JSON.parse(lines[1].response.body).token).toBe('[redacted]');
    writer.close();
  });

  it('records every exchange as HAR 1.2, redacted', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'svckit-har-')), 'run.har');
    const har = harRecorder(path, '0.0.0-test');
    har.sink(sent);
    har.sink({ type: 'check_finished', at: sent.at, check: 'a.b', status: 'passed', durationMs: 1 });
    har.write();
    const doc = JSON.parse(readFileSync(path, 'utf8'));
    expect(doc.log.version).toBe('1.2');
    expect(doc.log.entries).toHaveLength(1);
    const [entry] = doc.log.entries;
    expect(entry.request).toMatchObject({ method: 'POST', queryString: [{ name: 'x', value: '1' }] });
    expect(entry.request.headers).toContainEqual({ name: 'authorization', value: 'Bearer [redacted]' });
    expect(entry.response.status).toBe(201);
    expect(JSON.parse(entry.response.content.text).token).toBe('[redacted]');
    expect(entry._check).toBe('institutional.auth.bad_bearer');
    expect(readFileSync(path, 'utf8')).not.toMatch(/svcadm_secret|svc_abcdefghijkl/);
  });
});
