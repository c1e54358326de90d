// Surface F end to end: spec "GET {site_url}/.well-known/pqc-evidence.json returns the Evidence document".
// The contract's example document, generated now, in the data directory of a real stack (D-153: the site
// serves <data>/evidence), fetched over the site origin's hybrid post-quantum TLS by the harness's evidence
// checks, which must all pass, none skipped. Building the document from real runs is test/evidence/build.test.ts.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Catalogue } from '../../conformance/catalogue.ts';
import { evidenceChecks } from '../../conformance/checks/evidence/index.ts';
import { runChecks } from '../../conformance/runner.ts';
import { startTestStack, type TestStack } from '../support/stack.ts';
import { editedExample } from './example.ts';

let running: TestStack;
beforeAll(async () => {
  running = await startTestStack({ env: { SVC_EVIDENCE_AT_START: 'false' }, trustCa: true });
  const dir = path.join(running.dataDir, 'evidence');
  mkdirSync(dir, { recursive: true });
  const document = editedExample((doc) => {
    doc.generated = new Date().toISOString();
  });
  writeFileSync(path.join(dir, 'pqc-evidence.json'), JSON.stringify(document));
}, 120_000);
afterAll(async () => {
  await running?.close();
});

describe('the evidence document, built and served by a real stack', () => {
  it('passes every evidence check over the site origin, none skipped', async () => {
    const catalogue = new Catalogue();
    const checks = evidenceChecks();
    for (const check of checks) catalogue.register(check);
    const results = await runChecks(catalogue, running.target);
    expect(results.map((r) => `${r.id}: ${r.status}${r.status === 'passed' ? '' : `: ${r.reason}`}`)).toEqual(
      checks.map((c) => `${c.id}: passed`),
    );
  }, 60_000);

  it('serves it as application/json with a validator the client can revalidate with', async () => {
    const url = new URL('.well-known/pqc-evidence.json', running.target.site);
    const first = await fetch(url);
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toMatch(/^application\/json/);
    const etag = first.headers.get('etag');
    expect(etag).toBeTruthy();
    const served = (await first.json()) as { generated: string };
    expect(Date.now() - Date.parse(served.generated)).toBeLessThan(60_000);
    const again = await fetch(url, { headers: { 'if-none-match': etag! } });
    expect(again.status).toBe(304);
  });
});
