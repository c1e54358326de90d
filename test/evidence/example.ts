// The evidence schema (specs/evidence.schema.json) and its example document, read once for the tests of
// surface F that start from the example and change one field at a time.
import { readFileSync } from 'node:fs';
import type {
  AcvpResults,
  InteroperabilityResults,
  Peer,
  PqcEvidenceDocument,
  ProtocolResults,
} from '../../generated/evidence/types.gen.ts';
import { repoPath } from '../../src/paths.ts';

/** The schema's example: every conformance section it carries is present, with its skipped count and peers. */
export type EvidenceExample = PqcEvidenceDocument & {
  conformance: {
    acvp: AcvpResults & { skipped: number };
    interoperability: InteroperabilityResults & { peers: Peer[] };
    protocol: ProtocolResults;
  };
};

/** specs/evidence.schema.json, parsed (the fields the tests read by name). */
export const evidenceSchema: { $schema: string; $id: string; examples: [EvidenceExample] } = JSON.parse(
  readFileSync(repoPath('specs/evidence.schema.json'), 'utf8'),
);

/** The schema's example document, as published. */
export const evidenceExample: EvidenceExample = evidenceSchema.examples[0];

/**
 * A copy of the example changed by `edit`. Edits that break the schema on purpose go through
 * `Object.assign` or `Reflect.deleteProperty`, since the document's type does not allow them.
 */
export function editedExample(edit: (doc: EvidenceExample) => void = () => {}): EvidenceExample {
  const doc = structuredClone(evidenceExample);
  edit(doc);
  return doc;
}
