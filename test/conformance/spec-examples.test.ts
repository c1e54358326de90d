// The specs.<surface>.examples_validate checks, on small fixture contracts written to a temp dir.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import {
  checkContractExamples,
  CONTRACT_FILES,
  type ContractFile,
} from '../../conformance/checks/spec-examples/index.ts';

const contract = (key: string) => CONTRACT_FILES.find((c) => c.key === key) as ContractFile;

function specsDir(files: Record<string, unknown>): URL {
  const dir = mkdtempSync(join(tmpdir(), 'svckit-specs-'));
  for (const [name, doc] of Object.entries(files)) {
    writeFileSync(join(dir, name), name.endsWith('.json') ? JSON.stringify(doc) : stringify(doc));
  }
  return pathToFileURL(`${dir}/`);
}

const ACCOUNT = { id: 'acc_01JD3Z8Q4V6WQ8N2K7M5R9T3XA', reference: 'ACC-0000000042', dailyLimit: 1234.57 };

function openapi(account: unknown = ACCOUNT, limitExample: unknown = 50) {
  return {
    openapi: '3.1.0',
    info: { title: 't', version: '1.0.0' },
    paths: {
      '/accounts/{id}': {
        get: {
          parameters: [{ $ref: '#/components/parameters/Limit' }],
          responses: {
            '200': {
              description: 'ok',
              content: {
                'application/json': {
                  schema: { $ref: '#/components/schemas/Account' },
                  examples: { default: { $ref: '#/components/examples/Account' } },
                },
              },
            },
          },
        },
      },
    },
    components: {
      parameters: {
        Limit: {
          name: 'limit',
          in: 'query',
          schema: { type: 'integer', minimum: 1, maximum: 200 },
          example: limitExample,
        },
      },
      examples: { Account: { summary: 'an account', value: account } },
      schemas: {
        Account: {
          type: 'object',
          'x-decision': 'D-036',
          required: ['id', 'reference'],
          additionalProperties: false,
          properties: {
            id: { type: 'string', pattern: '^acc_[0-9A-HJKMNP-TV-Z]{26}$', example: 'acc_01JD3Z8Q4V6WQ8N2K7M5R9T3XA' },
            reference: { type: 'string', pattern: '^ACC-[0-9]{10}$' },
            dailyLimit: { type: 'number', minimum: 0, multipleOf: 0.01 },
          },
        },
      },
    },
  };
}

describe('OpenAPI examples', () => {
  it('passes when every media-type and parameter example fits (refs, x- keywords, multipleOf 0.01)', async () => {
    const verdict = await checkContractExamples(
      contract('institutional'),
      specsDir({ 'institutional.openapi.yaml': openapi() }),
    );
    expect(verdict).toEqual({ status: 'passed', reason: '2 example(s) validate' });
  });

  it('fails on a media-type example that breaks its schema, naming where and why', async () => {
    const bad = openapi({ ...ACCOUNT, reference: 'ACC-42', extra: true });
    const verdict = await checkContractExamples(
      contract('institutional'),
      specsDir({ 'institutional.openapi.yaml': bad }),
    );
    expect(verdict.status).toBe('failed');
    expect(verdict.actual).toEqual([
      '#/paths/~1accounts~1{id}/get/responses/200/content/application~1json/examples/default: (value) must NOT have additional properties ("extra")',
      '#/paths/~1accounts~1{id}/get/responses/200/content/application~1json/examples/default: /reference must match pattern "^ACC-[0-9]{10}$"',
    ]);
  });

  it('fails on a parameter example outside its schema', async () => {
    const verdict = await checkContractExamples(
      contract('explorer'),
      specsDir({ 'explorer.openapi.yaml': openapi(ACCOUNT, 500) }),
    );
    expect(verdict.status).toBe('failed');
    expect(verdict.reason).toContain('#/components/parameters/Limit/example: (value) must be <= 200');
  });

  it('fails a document of the wrong format or with no examples at all', async () => {
    const swagger = { ...openapi(), openapi: '3.0.3' };
    const v1 = await checkContractExamples(contract('admin'), specsDir({ 'admin.openapi.yaml': swagger }));
    expect(v1).toMatchObject({
      status: 'failed',
      reason: 'specs/admin.openapi.yaml: expected OpenAPI 3.1 (openapi), got "3.0.3"',
    });
    const bare = { openapi: '3.1.0', info: { title: 't', version: '1.0.0' }, paths: {} };
    const v2 = await checkContractExamples(contract('admin'), specsDir({ 'admin.openapi.yaml': bare }));
    expect(v2).toMatchObject({ status: 'failed', reason: 'specs/admin.openapi.yaml: no examples found' });
  });
});

describe('a missing contract file', () => {
  it('fails with a clear reason (never skipped, never passed)', async () => {
    const verdict = await checkContractExamples(contract('chain'), specsDir({}));
    expect(verdict.status).toBe('failed');
    expect(verdict.reason).toMatch(/^specs\/chain\.openrpc\.json is missing \(looked at .*chain\.openrpc\.json\)$/);
  });
});

function asyncapi(headers: Record<string, unknown>, payload: unknown) {
  return {
    asyncapi: '3.0.0',
    id: 'urn:svckit:webhooks',
    info: { title: 't', version: '1.0.0' },
    components: {
      messageTraits: {
        Signed: {
          headers: {
            type: 'object',
            required: ['X-SVC-Event', 'X-SVC-Delivery'],
            properties: { 'X-SVC-Delivery': { type: 'string', format: 'uuid' } },
          },
        },
      },
      schemas: { Settled: { type: 'object', required: ['status'], properties: { status: { const: 'SETTLED' } } } },
      messages: {
        settled: {
          traits: [{ $ref: '#/components/messageTraits/Signed' }],
          headers: { type: 'object', properties: { 'X-SVC-Event': { type: 'string', const: 'payment.settled' } } },
          payload: { $ref: '#/components/schemas/Settled' },
          examples: [{ name: 'settled', headers, payload }],
        },
      },
    },
  };
}

describe('AsyncAPI examples', () => {
  const good = { 'X-SVC-Event': 'payment.settled', 'X-SVC-Delivery': '8a562c67-ca16-48ba-b074-65581be6f001' };

  it('validates headers against the message headers merged with its traits, and the payload', async () => {
    const verdict = await checkContractExamples(
      contract('webhooks'),
      specsDir({ 'webhooks.asyncapi.yaml': asyncapi(good, { status: 'SETTLED' }) }),
    );
    expect(verdict).toEqual({ status: 'passed', reason: '2 example(s) validate' });
  });

  it('fails when a header breaks the trait (required, format) or the message (const), or the payload is wrong', async () => {
    const headers = { 'X-SVC-Event': 'payment.failed', 'X-SVC-Delivery': 'not-a-uuid' };
    const doc = asyncapi(headers, { status: 'FAILED' });
    const verdict = await checkContractExamples(contract('webhooks'), specsDir({ 'webhooks.asyncapi.yaml': doc }));
    expect(verdict.status).toBe('failed');
    expect(verdict.actual).toEqual([
      '#/components/messages/settled/examples/0/payload: /status must be equal to constant ("SETTLED")',
      '#/components/messages/settled/examples/0/headers: /X-SVC-Event must be equal to constant ("payment.settled")',
      '#/components/messages/settled/examples/0/headers: /X-SVC-Delivery must match format "uuid"',
    ]);
    const missing = asyncapi({ 'X-SVC-Event': 'payment.settled' }, { status: 'SETTLED' });
    const v2 = await checkContractExamples(contract('webhooks'), specsDir({ 'webhooks.asyncapi.yaml': missing }));
    expect(v2.reason).toContain("must have required property 'X-SVC-Delivery'");
  });
});

function openrpc(params: unknown[], result: unknown) {
  return {
    openrpc: '1.3.2',
    info: { title: 't', version: '1.0.0' },
    methods: [
      {
        name: 'eth_getBalance',
        params: [
          { $ref: '#/components/contentDescriptors/Address' },
          { name: 'blockNumber', required: true, schema: { $ref: '#/components/schemas/BlockTag' } },
        ],
        result: { name: 'balance', schema: { type: 'string', pattern: '^0x([1-9a-f][0-9a-f]*|0)$' } },
        examples: [{ name: 'balance', params, result: { name: 'balance', value: result } }],
      },
    ],
    components: {
      contentDescriptors: {
        Address: { name: 'address', required: true, schema: { type: 'string', pattern: '^0x[0-9a-fA-F]{40}$' } },
      },
      schemas: { BlockTag: { enum: ['latest', 'earliest', 'pending'] } },
    },
  };
}

describe('OpenRPC examples', () => {
  const address = { name: 'address', value: '0x5B38Da6a701c568545dCfcB03FcB875f56beddC4' };

  it('validates params by position and the result', async () => {
    const doc = openrpc([address, { name: 'blockNumber', value: 'latest' }], '0xde0b6b3a7640000');
    const verdict = await checkContractExamples(contract('chain'), specsDir({ 'chain.openrpc.json': doc }));
    expect(verdict).toEqual({ status: 'passed', reason: '3 example(s) validate' });
  });

  it('fails on a wrong param, a wrong result and a missing required param', async () => {
    const wrong = openrpc([address, { name: 'blockNumber', value: 'safe' }], '0x0de0');
    const v1 = await checkContractExamples(contract('chain'), specsDir({ 'chain.openrpc.json': wrong }));
    expect(v1.actual).toEqual([
      '#/methods/0/examples/0/params/1/value: (value) must be equal to one of the allowed values ("latest", "earliest", "pending")',
      '#/methods/0/examples/0/result/value: (value) must match pattern "^0x([1-9a-f][0-9a-f]*|0)$"',
    ]);
    const short = openrpc([address], '0x0');
    const v2 = await checkContractExamples(contract('chain'), specsDir({ 'chain.openrpc.json': short }));
    expect(v2.reason).toContain('required param "blockNumber" is missing from the example');
  });
});

describe('evidence schema examples', () => {
  it('passes for the contract in specs/ (strict ajv, x-decision registered)', async () => {
    const verdict = await checkContractExamples(contract('evidence'), new URL('../../specs/', import.meta.url));
    expect(verdict).toEqual({ status: 'passed', reason: '1 example(s) validate' });
  });

  it('fails a schema that does not compile strictly or whose example is invalid', async () => {
    const base = { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object' };
    const unknownKeyword = { ...base, 'x-owner': 'lead', examples: [{}] };
    const v1 = await checkContractExamples(contract('evidence'), specsDir({ 'evidence.schema.json': unknownKeyword }));
    expect(v1.reason).toContain('does not compile in ajv strict mode');
    const badExample = {
      ...base,
      required: ['generated'],
      properties: { generated: { type: 'string' } },
      examples: [{}],
    };
    const v2 = await checkContractExamples(contract('evidence'), specsDir({ 'evidence.schema.json': badExample }));
    expect(v2.actual).toEqual(["#/examples/0: (value) must have required property 'generated'"]);
  });
});
