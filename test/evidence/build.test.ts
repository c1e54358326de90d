// `svckit evidence build` in its offline mode (npm test has no network): every count comes from the
// runs, the document validates against specs/evidence.schema.json and verifies, and what was not
// measured (audit, attestations) is said, never invented. The online mode runs with a fake registry.
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { beforeAll, describe, expect, it } from 'vitest';
import { strictEvidenceAjv } from '../../conformance/checks/spec-examples/evidence.ts';
import { buildEvidence, type BuildEvidenceResult } from '../../conformance/evidence/build.ts';
import { readProtocolReport } from '../../conformance/evidence/results-files.ts';
import { parseNpmAudit } from '../../conformance/evidence/supply-chain.ts';
import { buildRunReport } from '../../conformance/report/build.ts';
import type { CheckResult } from '../../conformance/runner.ts';
import { ManualClock } from '../../src/clock.ts';
import { verifyEvidence } from '../../src/evidence/verify.ts';
import { REPO_VECTORS } from '../crypto/vector-files.ts';
import { REPO_ROOT } from '../../src/paths.ts';
import { evidenceSchema as schema } from './example.ts';

const base = {
  repoRoot: REPO_ROOT,
  vectorsDir: REPO_VECTORS,
  registry: 'https://registry.npmjs.org/',
  vendor: { name: 'svckit', url: 'https://svckit.dev' },
  dependencyPolicy: 'https://svckit.dev/docs/dependency-policy',
};

describe('evidence build (offline)', () => {
  let built: BuildEvidenceResult;
  let outDir: string;
  const now = new Date('2026-11-21T12:00:00.000Z');

  beforeAll(async () => {
    outDir = mkdtempSync(join(tmpdir(), 'svckit-evidence-'));
    built = await buildEvidence({
      ...base,
      outDir,
      online: false,
      clock: new ManualClock(now.getTime()),
      siteUrl: 'https://site.example',
    });
  }, 120_000);

  it('validates against specs/evidence.schema.json in strict mode and verifies', () => {
    const validate = strictEvidenceAjv().compile(schema);
    expect(validate(built.document), JSON.stringify(validate.errors)).toBe(true);
    expect(verifyEvidence(built.document, { now })).toEqual({ status: 'verified', violations: [], ageDays: 0 });
    expect(JSON.parse(readFileSync(join(outDir, 'pqc-evidence.json'), 'utf8'))).toEqual(built.document);
    expect(built.document.generated).toBe(now.toISOString());
  });

  it('takes every count from the runs it made, with runnable reproduce commands', () => {
    const acvp = JSON.parse(readFileSync(join(outDir, 'acvp', 'acvp-results.json'), 'utf8'));
    const interop = JSON.parse(readFileSync(join(outDir, 'interop', 'interop-results.json'), 'utf8'));
    const { conformance } = built.document;
    expect(conformance.acvp).toMatchObject({ total: 3388, passed: 2061, failed: 0, skipped: 1327 });
    expect(conformance.acvp).toMatchObject(acvp.summary.total);
    // vectors/ carries only the parameter sets svckit implements (D-132).
    expect(conformance.acvp?.skippedReason).not.toContain('out of scope');
    expect(conformance.acvp?.reproduce).toBe(
      `npx svckit acvp --vectors vectors --impl all --out ${join(outDir, 'acvp')}`,
    );
    expect(conformance.acvpByImplementation).toEqual(acvp.summary.byImplementation);
    expect(conformance.wycheproof).toMatchObject({ total: 3852, passed: 3088, failed: 0, skipped: 764 });
    expect(conformance.interoperability).toEqual({
      checks: interop.summary.checks,
      failed: 0,
      notApplicable: interop.summary.notApplicable,
      rows: 12,
      bothDirections: true,
      negativeControls: true,
      peers: interop.peers.map(({ name, version, language }: Record<string, string>) => ({ name, version, language })),
      reproduce: `npx svckit interop --out ${join(outDir, 'interop')}`,
    });
    // No protocol report was given: no counts, a note instead (never invented).
    expect(conformance.protocol).toBeUndefined();
    expect(conformance.protocolNote).toMatch(/^not included/);
  });

  it('lists the algorithms, AES-256-GCM and the two hybrid constructions', () => {
    expect(
      built.document.algorithms.map((a) => [a.parameterSet, a.standard, a.family, a.purpose, a.nistSecurityCategory]),
    ).toEqual([
      ['ML-DSA-65', 'FIPS 204', 'ML-DSA', 'digital signature', 3],
      ['ML-KEM-768', 'FIPS 203', 'ML-KEM', 'key encapsulation', 3],
    ]);
    expect(built.document.symmetricAlgorithms).toEqual([
      {
        parameterSet: 'AES-256-GCM',
        standard: 'FIPS 197, NIST SP 800-38D',
        family: 'AES',
        purpose: 'authenticated encryption',
        nistSecurityCategory: 5,
      },
    ]);
    expect(built.document.hybrid?.map((h) => h.name)).toEqual([
      'X25519MLKEM768',
      'ML-KEM-768 + HKDF-SHA256 + AES-256-GCM memo envelope (D-032)',
    ]);
  });

  it('says what the offline build did not check, and states no audit count', () => {
    const audit = built.document.supplyChain.dependencyAudit as Record<string, unknown>;
    expect(audit.performed).toBe(false);
    expect(audit).not.toHaveProperty('findings');
    for (const p of built.document.packages) {
      expect(p).not.toHaveProperty('provenance');
      expect(p.provenanceNote).toMatch(/^attestation lookup not performed/);
    }
  });

  it('lists the production dependencies, optional ones included, at their lockfile versions, with licence and registry', () => {
    const manifest = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8'));
    const lock = JSON.parse(readFileSync(join(REPO_ROOT, 'package-lock.json'), 'utf8'));
    const names = [...Object.keys(manifest.dependencies), ...Object.keys(manifest.optionalDependencies ?? {})].sort(
      (a, b) => a.localeCompare(b),
    );
    // A workspace package (@svckit/sdk) is a link to its folder, which carries the version.
    const locked = (name: string) => {
      const entry = lock.packages[`node_modules/${name}`];
      return entry.link ? lock.packages[entry.resolved].version : entry.version;
    };
    const expected = names.map((name) => [name, locked(name)]);
    expect(names).toContain('@svckit/sdk');
    expect(names).toContain('@foundry-rs/anvil-linux-amd64');
    expect(built.document.packages.map((p) => [p.name, p.version])).toEqual(expected);
    expect(built.document.packages.find((p) => p.name === '@noble/post-quantum')).toMatchObject({
      license: 'MIT',
      registry: 'https://registry.npmjs.org/',
    });
  });

  it('writes the CycloneDX SBOM from the lockfile and a CBOM that validates against CycloneDX 1.6', () => {
    const sbomBytes = readFileSync(join(outDir, 'sbom.cdx.json'));
    const sbom = JSON.parse(sbomBytes.toString('utf8'));
    expect(sbom.bomFormat).toBe('CycloneDX');
    expect(built.document.supplyChain.sbom).toMatchObject({
      specVersion: '1.6',
      components: sbom.components.length,
      sha256: createHash('sha256').update(sbomBytes).digest('hex'),
      url: 'https://site.example/pqc-evidence/sbom.cdx.json',
    });
    expect(
      sbom.components.some((c: { name: string; group?: string }) => c.group === '@noble' && c.name === 'post-quantum'),
    ).toBe(true);
    const schemas = join(REPO_ROOT, 'node_modules/@cyclonedx/cyclonedx-library/res/schema');
    const ajv = new Ajv({ strict: false, allErrors: true });
    addFormats.default(ajv);
    // CycloneDX uses two formats ajv-formats lacks; the CBOM has no such field, so accept them as they come.
    ajv.addFormat('iri-reference', true).addFormat('idn-email', true);
    for (const f of ['spdx.SNAPSHOT.schema.json', 'jsf-0.82.SNAPSHOT.schema.json']) {
      // bom-1.6 refers to them relative to its $id, http://cyclonedx.org/schema/
      const { $id: _id, ...referenced } = JSON.parse(readFileSync(join(schemas, f), 'utf8'));
      ajv.addSchema(referenced, `http://cyclonedx.org/schema/${f}`);
    }
    const validate = ajv.compile(JSON.parse(readFileSync(join(schemas, 'bom-1.6.SNAPSHOT.schema.json'), 'utf8')));
    const cbom = JSON.parse(readFileSync(join(outDir, 'cbom.cdx.json'), 'utf8'));
    expect(validate(cbom), JSON.stringify(validate.errors?.slice(0, 3))).toBe(true);
    expect(cbom.components.map((c: { name: string }) => c.name)).toContain('ML-KEM-768');
  });

  it('online: provenance only where the registry has an attestation, the audit counts as npm reported them', async () => {
    const lookups: string[] = [];
    const check = (id: string, status: CheckResult['status']): CheckResult =>
      ({
        id,
        title: id,
        surface: 'F',
        severity: 'MUST',
        source: { quote: 'x' },
        status,
        durationMs: 1,
        ...(status === 'passed' ? {} : { reason: 'r' }),
      }) as CheckResult;
    const protocolResults = join(mkdtempSync(join(tmpdir(), 'svckit-protocol-')), 'conformance.json');
    writeFileSync(
      protocolResults,
      JSON.stringify(
        buildRunReport(
          {
            results: [check('a.b', 'passed'), check('a.c', 'passed'), check('a.d', 'failed'), check('a.e', 'skipped')],
          },
          {
            command: 'svckit conformance --report json',
            replayCheck: (id) => `svckit conformance --only ${id}`,
            replayCase: (file) => `svckit replay ${file}`,
            startedAt: now.getTime(),
            finishedAt: now.getTime(),
            phases: [],
            waited: { answers: 0, ms: 0 },
            requests: 0,
            interrupted: false,
          },
        ),
      ),
    );
    const result = await buildEvidence({
      ...base,
      outDir: mkdtempSync(join(tmpdir(), 'svckit-evidence-online-')),
      online: true,
      clock: new ManualClock(now.getTime()),
      acvpResults: join(outDir, 'acvp', 'acvp-results.json'),
      wycheproofResults: join(outDir, 'wycheproof', 'wycheproof-results.json'),
      interopResults: join(outDir, 'interop', 'interop-results.json'),
      protocolResults,
      fetch: async (url) => {
        lookups.push(url);
        if (url.includes('/fastify@'))
          return {
            status: 200,
            json: async () => ({ attestations: [{ predicateType: 'https://slsa.dev/provenance/v1' }] }),
          };
        if (url.includes('/yaml@')) return { status: 503, json: async () => ({}) };
        return { status: 404, json: async () => ({}) };
      },
      audit: async () => ({
        tool: 'npm audit',
        performed: true,
        date: '2026-11-21',
        scope: 'production',
        findings: 2,
        bySeverity: { low: 2 },
      }),
    });
    expect(lookups).toContain('https://registry.npmjs.org/-/npm/v1/attestations/@noble%2fpost-quantum@0.7.1');
    const fastify = result.document.packages.find((p) => p.name === 'fastify');
    expect(fastify?.provenance).toMatch(/^https:\/\/registry\.npmjs\.org\/-\/npm\/v1\/attestations\/fastify@/);
    expect(fastify).not.toHaveProperty('provenanceNote');
    expect(result.document.packages.find((p) => p.name === 'yaml')?.provenanceNote).toMatch(
      /^attestation lookup failed: HTTP 503/,
    );
    expect(result.document.packages.find((p) => p.name === 'commander')?.provenanceNote).toMatch(
      /^the registry publishes no attestation/,
    );
    expect(result.document.supplyChain.dependencyAudit).toMatchObject({ performed: true, findings: 2 });
    expect(result.document.conformance.acvp).toEqual(built.document.conformance.acvp);
    expect(result.document.conformance.protocol).toMatchObject({
      checks: 4,
      passed: 2,
      failed: 1,
      skipped: 1,
      reproduce: 'npx svckit conformance --report json --out reports',
    });
  });

  it('refuses a results file whose summary does not match its results', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'svckit-protocol-')), 'conformance.json');
    writeFileSync(
      path,
      JSON.stringify({
        kind: 'svckit-conformance-report',
        finishedAt: now.toISOString(),
        target: null,
        summary: { passed: 2, failed: 0, skipped: 0 },
        checks: [
          { id: 'a.b', status: 'skipped' },
          { id: 'a.c', status: 'passed' },
        ],
      }),
    );
    expect(() => readProtocolReport(path)).toThrow(/does not match its results \(1\/0\/1\)/);
  });
});

describe('npm audit output', () => {
  const now = new Date('2026-11-21T12:00:00.000Z');
  it('gives counts only when npm reported them, and the reason otherwise', () => {
    const ok = JSON.stringify({
      auditReportVersion: 2,
      vulnerabilities: {},
      metadata: { vulnerabilities: { info: 0, low: 1, moderate: 0, high: 2, critical: 0, total: 3 } },
    });
    expect(parseNpmAudit(ok, now)).toEqual({
      tool: 'npm audit',
      performed: true,
      date: '2026-11-21',
      scope: 'production dependencies in package-lock.json (--omit dev)',
      findings: 3,
      bySeverity: { info: 0, low: 1, moderate: 0, high: 2, critical: 0 },
    });
    // What a registry that refuses the bulk advisory endpoint makes npm print.
    const refused = JSON.stringify({
      message: '405 Method Not Allowed - POST https://registry.npmjs.org/-/npm/v1/security/advisories/bulk',
      statusCode: 405,
      error: { summary: '', detail: '' },
    });
    expect(parseNpmAudit(refused, now)).toEqual({
      tool: 'npm audit',
      performed: false,
      note: 'npm audit gave no counts: 405 Method Not Allowed - POST https://registry.npmjs.org/-/npm/v1/security/advisories/bulk',
    });
    expect(parseNpmAudit('npm error', now)).toMatchObject({ performed: false });
  });
});
