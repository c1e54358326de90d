/** The evidence JSON Schema (F) → `generated/evidence/`: the document type and the schema for validators. */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { compileDefinitions } from './json-schema-types.ts';
import { generatedHeader, type OutputRoot } from './paths.ts';
import { loadSpec } from './spec-loader.ts';

const SPEC = 'evidence.schema.json';

/** Writes `generated/evidence/types.gen.ts` and `schema.gen.ts`. */
export async function generateEvidence({ generatedDir }: OutputRoot): Promise<void> {
  const schema = loadSpec(SPEC);
  const {
    $defs = {},
    $schema: _dialect,
    $id: _id,
    ...root
  } = schema as { $defs?: Record<string, unknown> } & Record<string, unknown>;
  const types = await compileDefinitions({ ...$defs, PqcEvidenceDocument: root }, generatedHeader(SPEC));
  const out = path.join(generatedDir, 'evidence');
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  writeFileSync(path.join(out, 'types.gen.ts'), types);
  writeFileSync(
    path.join(out, 'schema.gen.ts'),
    [
      ...generatedHeader(SPEC),
      '',
      '/** The evidence document JSON Schema (draft 2020-12), for runtime validators such as ajv. */',
      `export const pqcEvidenceSchema = ${JSON.stringify(schema, null, 2)} as const;`,
      '',
    ].join('\n'),
  );
}
