// Every spec lints clean, with each format's own tool.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Parser } from '@asyncapi/parser';
import { parseOpenRPCDocument } from '@open-rpc/schema-utils-js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { openApiSurfaces } from '../../scripts/generate/paths.ts';
import { REPO_ROOT, SPECS_DIR } from '../../src/paths.ts';

const read = (file: string) => readFileSync(path.join(SPECS_DIR, file), 'utf8');

describe('spec lint', () => {
  it.each([...openApiSurfaces.map((s) => s.spec), 'webhooks.asyncapi.yaml'])(
    '%s passes redocly recommended-strict with zero problems',
    (spec) => {
      const cli = path.join(REPO_ROOT, 'node_modules/@redocly/cli/bin/cli.js');
      const run = spawnSync(
        process.execPath,
        [cli, 'lint', '--config', 'redocly.yaml', '--format', 'json', path.join('specs', spec)],
        {
          cwd: REPO_ROOT,
          encoding: 'utf8',
        },
      );
      const report = JSON.parse(run.stdout) as { totals: { errors: number; warnings: number }; problems: unknown[] };
      expect(report.problems).toEqual([]);
      expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
      expect(run.status).toBe(0);
    },
  );

  it('the AsyncAPI contract parses with no error or warning diagnostics', async () => {
    const { document, diagnostics } = await new Parser().parse(read('webhooks.asyncapi.yaml'));
    const serious = diagnostics.filter((d) => d.severity <= 1).map((d) => `${d.path.join('.')}: ${d.message}`);
    expect(serious).toEqual([]);
    expect(document?.version()).toBe('3.0.0');
  });

  it('the OpenRPC contract parses and dereferences with @open-rpc/schema-utils-js', async () => {
    const doc = await parseOpenRPCDocument(read('chain.openrpc.json'));
    expect(doc.openrpc).toMatch(/^1\.3\./);
    expect(doc.methods.length).toBeGreaterThanOrEqual(24);
  });

  it('the evidence JSON Schema compiles under ajv 2020 strict mode', () => {
    const ajv = new Ajv2020({ strict: true, allErrors: true });
    addFormats.default(ajv);
    ajv.addKeyword('x-decision');
    const schema = JSON.parse(read('evidence.schema.json')) as { $schema: string };
    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(() => ajv.compile(schema)).not.toThrow();
  });
});
