// specs/evidence.schema.json against the spec's "Evidence document (F)" table and D-045.
import { describe, expect, it } from 'vitest';
import { strictEvidenceAjv } from '../../conformance/checks/spec-examples/evidence.ts';
import {
  type EvidenceExample,
  editedExample,
  evidenceExample as example,
  evidenceSchema as schema,
} from '../evidence/example.ts';

const validate = strictEvidenceAjv().compile(schema);

function rejects(edit: (doc: EvidenceExample) => void): string[] {
  const doc = editedExample(edit);
  expect(validate(doc)).toBe(false);
  return (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
}

describe('evidence.schema.json', () => {
  it('declares draft 2020-12 and its id, and its example is valid', () => {
    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(schema.$id).toBe('https://svckit.dev/schemas/pqc-evidence.schema.json');
    expect(validate(example)).toBe(true);
  });

  it('refuses provenance and provenanceNote together (spec: "never both appear")', () => {
    expect(rejects((d) => (d.packages[1]!.provenance = 'https://ghcr.io/attestations/1'))).toContain(
      '/packages/1 must NOT be valid',
    );
  });

  it('refuses negative counts, a purpose outside the enum and category 6', () => {
    expect(rejects((d) => (d.conformance.acvp.failed = -1))).toContain('/conformance/acvp/failed must be >= 0');
    expect(rejects((d) => Object.assign(d.algorithms[0], { purpose: 'hashing' }))).toContain(
      '/algorithms/0/purpose must be equal to one of the allowed values',
    );
    expect(rejects((d) => (d.algorithms[0].nistSecurityCategory = 6))).toContain(
      '/algorithms/0/nistSecurityCategory must be <= 5',
    );
    expect(rejects((d) => (d.nistSecurityCategories = [0]))).toContain('/nistSecurityCategories/0 must be >= 1');
  });

  it('refuses a vendor url that is not a URI and a missing top-level required field', () => {
    expect(rejects((d) => (d.vendor.url = 'svckit dot dev'))).toContain('/vendor/url must match format "uri"');
    expect(rejects((d) => Reflect.deleteProperty(d, 'supplyChain'))).toContain(
      " must have required property 'supplyChain'",
    );
    expect(rejects((d) => Object.assign(d, { packages: [] }))).toContain('/packages must NOT have fewer than 1 items');
  });

  it('closes the objects D-045 closes and leaves the others open', () => {
    expect(rejects((d) => Object.assign(d.conformance.acvp, { pased: 1 }))).toContain(
      '/conformance/acvp must NOT have additional properties',
    );
    expect(rejects((d) => Object.assign(d.conformance.interoperability.peers[0]!, { os: 'linux' }))).toContain(
      '/conformance/interoperability/peers/0 must NOT have additional properties',
    );
    const open = editedExample((d) => {
      d.extraTopLevel = true;
      d.product.runtime!.kernel = '6.12';
      Object.assign(d.conformance.protocol, { wycheproof: { checks: 3 } });
      d.supplyChain.sbom!.signed = true;
    });
    expect(validate(open)).toBe(true);
  });
});
