// Surface F: the evidence document served by the mock is typed and validates.
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { setupServer } from 'msw/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pqcEvidenceSchema } from '../../generated/evidence/schema.gen';
import type { PqcEvidenceDocument } from '../../generated/evidence/types.gen';
import { exampleEvidenceHandler } from '../../mocks/evidence.gen';

const server = setupServer(exampleEvidenceHandler('https://localhost:8445'));
beforeAll(() => server.listen({ onUnhandledFrame: 'error' }));
afterAll(() => server.close());

describe('evidence document from the mock', () => {
  it('is served at /.well-known/pqc-evidence.json and validates against the schema', async () => {
    const response = await fetch('https://localhost:8445/.well-known/pqc-evidence.json');
    const document = (await response.json()) as PqcEvidenceDocument;
    const ajv = new Ajv2020({ strict: true, allErrors: true });
    addFormats.default(ajv);
    ajv.addKeyword('x-decision');
    const validate = ajv.compile(pqcEvidenceSchema);
    expect(validate(document), JSON.stringify(validate.errors)).toBe(true);
    expect(document.algorithms.length).toBeGreaterThan(0);
    expect(validate({ ...document, generated: 'yesterday' })).toBe(false);
  });
});
