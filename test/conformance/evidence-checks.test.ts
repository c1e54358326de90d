// The evidence document checks (surface F) against a small HTTPS site serving good, tampered, stale and
// late documents: each check fails on the rule it enforces and only there; a 503 with Retry-After is
// waited out within the bound (D-153, D-164), and a site that never serves the document fails. The
// reference's evidence builder refuses to write a document that breaks a rule (a wrong count, both
// provenance fields), so only a crafted document served as it is shows that the check naming the rule
// catches it, rather than every check timing out on the site's 503.
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Catalogue } from '../../conformance/catalogue.ts';
import { evidenceChecks } from '../../conformance/checks/evidence/index.ts';
import { runChecks, type CheckResult } from '../../conformance/runner.ts';
import { remoteTarget } from '../../conformance/targets/remote.ts';
import { receiverTls } from '../../conformance/webhooks/receiver-tls.ts';
import { type EvidenceExample, editedExample } from '../evidence/example.ts';

const DAY_MS = 86_400_000;

/** The schema's example, generated now, changed by `edit`, as served. */
function document(edit: (doc: EvidenceExample) => void = () => {}): string {
  return JSON.stringify(
    editedExample((doc) => {
      doc.generated = new Date().toISOString();
      edit(doc);
    }),
  );
}

type Answer = { status: number; type?: string; body: string; retryAfter?: string };
const json = (body: string): Answer => ({ status: 200, type: 'application/json; charset=utf-8', body });
const building: Answer = {
  status: 503,
  type: 'application/json',
  body: '{"error":"not built yet","code":"EVIDENCE_NOT_BUILT"}',
  retryAfter: '1',
};

/** Per site (the first path segment): the answers in order, the last one repeated. */
const sites: Record<string, Answer[]> = {
  good: [json(document())],
  tampered: [json(document((d) => (d.conformance.acvp.total += 1)))],
  skips_as_passes: [json(document((d) => (d.conformance.acvp.passed += d.conformance.acvp.skipped)))],
  stale: [json(document((d) => (d.generated = new Date(Date.now() - 40 * DAY_MS).toISOString())))],
  both_provenances: [json(document((d) => (d.packages[1]!.provenance = 'https://registry.example/attestations/1')))],
  text: [{ status: 200, type: 'text/plain', body: document() }],
  late: [building, json(document())],
  never: [building],
};
const asked: Record<string, number> = {};

let server: https.Server;
let caCert: string;
let origin: string;

beforeAll(async () => {
  const tls = await receiverTls();
  caCert = tls.caCert;
  server = https.createServer({ cert: tls.cert, key: tls.key }, (req, res) => {
    const [, site = '', ...rest] = (req.url ?? '').split('/');
    const answers = sites[site];
    if (!answers || rest.join('/') !== '.well-known/pqc-evidence.json') return void res.writeHead(404).end();
    const answer = answers[Math.min(asked[site] ?? 0, answers.length - 1)]!;
    asked[site] = (asked[site] ?? 0) + 1;
    res.writeHead(answer.status, {
      ...(answer.type ? { 'content-type': answer.type } : {}),
      ...(answer.retryAfter ? { 'retry-after': answer.retryAfter } : {}),
    });
    res.end(answer.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** Runs the evidence checks against one site; statuses by id, and the failures' reasons. */
async function run(site: string, waitMs = 10_000): Promise<{ status: Record<string, string>; results: CheckResult[] }> {
  const catalogue = new Catalogue();
  for (const check of evidenceChecks({ waitMs })) catalogue.register(check);
  const results = await runChecks(catalogue, remoteTarget({ site: `${origin}/${site}/`, caCert }));
  return {
    status: Object.fromEntries(results.map((r) => [r.id.replace('evidence.document.', ''), r.status])),
    results,
  };
}

const allPassed = {
  content_type: 'passed',
  schema_valid: 'passed',
  counts: 'passed',
  provenance_exclusive: 'passed',
  fresh: 'passed',
};

describe('evidence.* checks', () => {
  it('pass on a fresh, valid document served as application/json', async () => {
    const { status, results } = await run('good');
    expect(status).toEqual(allPassed);
    expect(results.every((r) => r.surface === 'F' && r.severity === 'MUST')).toBe(true);
    expect(results[0]?.request?.url).toBe(`${origin}/good/.well-known/pqc-evidence.json`);
  });

  it('fail evidence.document.counts on a tampered count, naming the rule and the place', async () => {
    const { status, results } = await run('tampered');
    expect(status).toEqual({ ...allPassed, counts: 'failed' });
    expect(results.find((r) => r.id === 'evidence.document.counts')?.reason).toMatch(
      /^counts\.consistent at \/conformance\/acvp: total \d+ is not passed \d+ \+ failed \d+ \+ skipped \d+ = \d+$/,
    );
  });

  it('fail evidence.document.counts when skipped cases are counted as passes', async () => {
    const { status, results } = await run('skips_as_passes');
    expect(status).toEqual({ ...allPassed, counts: 'failed' });
    expect(results.find((r) => r.id === 'evidence.document.counts')?.reason).toContain(
      'skipped.not_a_pass at /conformance/acvp',
    );
  });

  it('fail evidence.document.fresh on a document older than 30 days (D-045)', async () => {
    const { status, results } = await run('stale');
    expect(status).toEqual({ ...allPassed, fresh: 'failed' });
    expect(results.find((r) => r.id === 'evidence.document.fresh')?.reason).toContain('generated.stale at /generated');
  });

  it('fail provenance_exclusive (and the schema) on a package with provenance and provenanceNote, naming the rule', async () => {
    const { status, results } = await run('both_provenances');
    expect(status).toEqual({ ...allPassed, schema_valid: 'failed', provenance_exclusive: 'failed' });
    expect(results.find((r) => r.id === 'evidence.document.provenance_exclusive')?.reason).toMatch(
      /^packages\.provenance_exclusive at \/packages\/1: \S+: provenance and provenanceNote never both appear/,
    );
  });

  it('fail evidence.document.content_type on a document served as text/plain', async () => {
    const { status, results } = await run('text');
    expect(status).toEqual({ ...allPassed, content_type: 'failed' });
    expect(results.find((r) => r.id === 'evidence.document.content_type')?.reason).toBe(
      'content-type expected application/json, got "text/plain"',
    );
  });

  it('wait out a 503 with Retry-After, asking once for all five checks', async () => {
    const { status } = await run('late');
    expect(status).toEqual(allPassed);
    expect(asked.late).toBe(2);
  });

  it('fail every check when the site still answers 503 after the bound', async () => {
    const { status, results } = await run('never', 1_500);
    expect(Object.values(status)).toEqual(Array(5).fill('failed'));
    for (const r of results) expect(r.reason).toMatch(/still answered 503 after [12] s \(D-164\)/);
    expect(asked.never).toBe(3); // at 0 s, after the Retry-After second, and once more at the bound
  });

  it('are skipped on a target without a site origin', async () => {
    const catalogue = new Catalogue();
    for (const check of evidenceChecks()) catalogue.register(check);
    const results = await runChecks(catalogue, remoteTarget({ base: 'https://127.0.0.1:1/' }));
    expect(results.map((r) => r.status)).toEqual(Array(5).fill('skipped'));
    expect(results[0]?.reason).toContain("'site'");
  });
});
