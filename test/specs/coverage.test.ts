// The contracts represent every table row,
// field, endpoint, method, event, header, error status and limit of the interface specification,
// with exact names and types. Everything compared here is read from the specification itself.
import { Parser } from '@asyncapi/parser';
import { beforeAll, describe, expect, it } from 'vitest';
import { deref, loadSpec, type SpecDocument } from '../../scripts/generate/spec-loader.ts';
import {
  jsonType,
  lineStarting,
  proseFields,
  section,
  splitTopLevel,
  table,
  tableFields,
  type SpecField,
} from './interface-spec.ts';
import { objectShape, propertySchema, typesOf } from './schema-shape.ts';

const institutional = loadSpec('institutional.openapi.yaml');
const explorer = loadSpec('explorer.openapi.yaml');
const wallet = loadSpec('wallet.openapi.yaml');
const rpc = loadSpec('chain.openrpc.json');
const evidence = loadSpec('evidence.schema.json');
const schemaRef = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** Asserts that a schema has each field, with the specification's type, and (for responses) requires it. */
function expectFields(
  doc: SpecDocument,
  schema: unknown,
  fields: (SpecField & { required?: boolean })[],
  label: string,
  allRequired = true,
) {
  const shape = objectShape(doc, schema);
  for (const field of fields) {
    expect(Object.keys(shape.properties), `${label}.${field.name} is missing`).toContain(field.name);
    if (field.type)
      expect([...typesOf(doc, shape.properties[field.name])], `${label}.${field.name} type`).toContain(field.type);
    const required = field.required ?? allRequired;
    expect(shape.required.has(field.name), `${label}.${field.name} required=${required}`).toBe(required);
  }
}

describe('A: institutional resources', () => {
  it('Account has every field of its table', () =>
    expectFields(institutional, schemaRef('Account'), tableFields('Account (A)'), 'Account'));
  it('Statement transaction has every field', () =>
    expectFields(
      institutional,
      schemaRef('StatementTransaction'),
      tableFields('Statement transaction (A)'),
      'StatementTransaction',
    ));
  it('Statement page has every field', () => {
    const fields = table('Statement page (A)').map((r) => ({ name: r.Field!, type: jsonType(r.Type!) }));
    expectFields(institutional, schemaRef('StatementPage'), fields, 'StatementPage');
  });
  it('Transfer has every field', () =>
    expectFields(
      institutional,
      schemaRef('Transfer'),
      proseFields(lineStarting('Transfer (A)', 'Fields:')),
      'Transfer',
    ));
  it('Transfer request has every field, required as the table says', () =>
    expectFields(
      institutional,
      schemaRef('TransferRequest'),
      tableFields('Transfer request (A, POST /transfers)'),
      'TransferRequest',
    ));
  it('Transfer creation response has every field', () =>
    expectFields(
      institutional,
      schemaRef('TransferCreated'),
      proseFields(lineStarting('Transfer creation response (A)', 'Fields:')),
      'TransferCreated',
    ));
});

describe('A: endpoints, security, errors, limits', () => {
  const rows = table('A. Institutional REST API');
  const operations = rows.map((r) => ({ method: r.Method!.toLowerCase(), path: r.Path! }));

  it('has all six endpoints of the table', () => {
    expect(operations).toHaveLength(6);
    for (const op of operations) {
      expect(
        (institutional.paths as Record<string, Record<string, unknown>>)[op.path]?.[op.method],
        `${op.method} ${op.path}`,
      ).toBeDefined();
    }
  });

  it('declares both authentication methods: svc_ bearer keys and the SVC-MLDSA header', () => {
    const schemes = Object.values(
      (institutional.components as { securitySchemes: Record<string, Record<string, string>> }).securitySchemes,
    );
    expect(
      schemes.some(
        (s) => s.type === 'http' && s.scheme === 'bearer' && /svc_/.test(`${s.bearerFormat} ${s.description}`),
      ),
    ).toBe(true);
    expect(
      schemes.some(
        (s) =>
          s.type === 'apiKey' &&
          s.in === 'header' &&
          s.name === 'Authorization' &&
          /SVC-MLDSA/.test(s.description ?? ''),
      ),
    ).toBe(true);
  });

  it('documents every error status of the Errors table with an {error} body on every operation', () => {
    const statuses = table('Errors').map((r) => r.Status!);
    expect(statuses).toEqual(['400', '401', '403', '404', '429', '500']);
    for (const [path, item] of Object.entries(
      institutional.paths as Record<
        string,
        Record<string, { responses: Record<string, unknown>; parameters?: unknown[]; requestBody?: unknown }>
      >,
    )) {
      for (const [method, op] of Object.entries(item)) {
        if (method === 'parameters') continue;
        const expected = ['401', '403', '429', '500'];
        if (op.requestBody || op.parameters?.length) expected.push('400');
        if (path.includes('{')) expected.push('404');
        for (const status of expected) {
          const response = deref<{ content?: Record<string, { schema: unknown }> }>(
            institutional,
            op.responses[status],
          );
          expect(response, `${method} ${path} documents ${status}`).toBeDefined();
          const shape = objectShape(institutional, response.content?.['application/json']?.schema);
          expect([...shape.required], `${method} ${path} ${status} body`).toContain('error');
        }
      }
    }
  });

  it('carries the limits: page and limit bounds, memo length, rate limit, transport', () => {
    const params = (institutional.components as { parameters: Record<string, { schema: Record<string, unknown> }> })
      .parameters;
    const page = Object.values(params).find((p) => (p as { name?: string }).name === 'page')!.schema;
    const limit = Object.values(params).find((p) => (p as { name?: string }).name === 'limit')!.schema;
    expect(page).toMatchObject({ type: 'integer', minimum: 1, default: 1 });
    expect(limit).toMatchObject({ type: 'integer', minimum: 1, maximum: 200, default: 50 });
    expect(propertySchema(institutional, schemaRef('TransferRequest'), 'memo')).toMatchObject({ maxLength: 512 });
    expect(institutional['x-rate-limit']).toMatchObject({ requestsPerSecond: 10 });
    const info = institutional.info as { description: string };
    expect(info.description).toMatch(/X25519MLKEM768/);
    expect(info.description).toMatch(/30 seconds|30 s/);
  });
});

describe('C: chain JSON-RPC', () => {
  const rows = table('C. Chain JSON-RPC');
  const methods = new Map(
    (rpc.methods as { name: string; params: unknown[]; result: unknown }[]).map((m) => [m.name, m]),
  );

  it('has all 24 methods of the table with their exact parameter names, in order (extra ones optional)', () => {
    expect(rows).toHaveLength(24);
    for (const row of rows) {
      const expected = row.Params === 'none' ? [] : splitTopLevel(row.Params!).map((p) => /^[A-Za-z]+/.exec(p)![0]);
      const method = methods.get(row.Method!);
      expect(method, row.Method).toBeDefined();
      const params = method!.params.map((p) => deref<{ name: string; required?: boolean }>(rpc, p));
      expect(
        params.slice(0, expected.length).map((p) => p.name),
        `${row.Method} params`,
      ).toEqual(expected);
      // D-131: a trailing param the spec does not list (eth_estimateGas's block) may only be optional.
      for (const extra of params.slice(expected.length))
        expect(extra.required, `${row.Method} ${extra.name}`).not.toBe(true);
    }
  });

  it('fixes the chain id, the network id and the gas price', () => {
    const result = (name: string) => deref<{ schema: Record<string, unknown> }>(rpc, methods.get(name)!.result).schema;
    expect(JSON.stringify(result('eth_chainId'))).toContain('0x10f447');
    expect(JSON.stringify(result('eth_gasPrice'))).toContain('"0x0"');
    expect(JSON.stringify(result('net_version'))).toContain('"1111111"');
  });
});

describe('D: explorer', () => {
  it('has all eight GET endpoints of the table', () => {
    const rows = table('D. Explorer REST API');
    expect(rows).toHaveLength(8);
    for (const row of rows) {
      expect((explorer.paths as Record<string, Record<string, unknown>>)[row.Path!]?.get, row.Path).toBeDefined();
    }
  });
  it('Chain block has every field', () =>
    expectFields(
      explorer,
      schemaRef('Block'),
      proseFields(lineStarting('Chain block (C, D)', 'Explorer block object:')),
      'Block',
    ));
  it('Explorer transaction has every field', () =>
    expectFields(
      explorer,
      schemaRef('ExplorerTransaction'),
      proseFields(lineStarting('Explorer transaction (D)', 'Fields:')),
      'ExplorerTransaction',
    ));
  it('Explorer address balance has every field', () =>
    expectFields(
      explorer,
      schemaRef('AddressBalance'),
      proseFields(lineStarting('Explorer address balance (D)', 'Fields:')),
      'AddressBalance',
    ));
  it('Explorer chain statistics has every field', () =>
    expectFields(
      explorer,
      schemaRef('ChainStats'),
      proseFields(lineStarting('Explorer chain statistics (D)', 'Fields:')),
      'ChainStats',
    ));
  it('Validator has every field', () =>
    expectFields(explorer, schemaRef('Validator'), proseFields(lineStarting('Validator (D)', 'Fields:')), 'Validator'));
  it('Validator list has every field, with the 50-block window', () => {
    expectFields(
      explorer,
      schemaRef('ValidatorList'),
      proseFields(lineStarting('Validator list (D, GET /api/validators)', 'Fields:')),
      'ValidatorList',
    );
    expect(JSON.stringify(propertySchema(explorer, schemaRef('ValidatorList'), 'sampleBlocks'))).toMatch(/50/);
  });
  it('Governance view has validators and qbft {n, f, threshold, blockPeriodSeconds 2, requestTimeoutSeconds 10}', () => {
    expectFields(
      explorer,
      schemaRef('GovernanceView'),
      [
        { name: 'validators', type: 'array' },
        { name: 'qbft', type: 'object' },
      ],
      'GovernanceView',
    );
    const qbft = propertySchema(explorer, schemaRef('GovernanceView'), 'qbft');
    const names = ['n', 'f', 'threshold', 'blockPeriodSeconds', 'requestTimeoutSeconds'];
    expectFields(
      explorer,
      qbft,
      names.map((name) => ({ name, type: 'integer' })),
      'qbft',
    );
    expect(JSON.stringify(propertySchema(explorer, qbft, 'blockPeriodSeconds'))).toMatch(/\b2\b/);
    expect(JSON.stringify(propertySchema(explorer, qbft, 'requestTimeoutSeconds'))).toMatch(/\b10\b/);
  });
  it('limits the recent lists to 10 blocks and 10 transactions', () => {
    for (const path of ['/blocks', '/txns']) {
      const op = (explorer.paths as Record<string, { get: { responses: Record<string, unknown> } }>)[path]!.get;
      const schema = deref<{ content: Record<string, { schema: unknown }> }>(explorer, op.responses['200']).content[
        'application/json'
      ]!.schema;
      expect(deref<{ maxItems: number }>(explorer, schema).maxItems, path).toBe(10);
    }
  });
});

describe('E: wallet session API', () => {
  it('has all six endpoints of the table', () => {
    const rows = table('E. Wallet session API');
    expect(rows).toHaveLength(6);
    for (const row of rows) {
      expect(
        (wallet.paths as Record<string, Record<string, unknown>>)[row.Path!]?.[row.Method!.toLowerCase()],
        row.Path,
      ).toBeDefined();
    }
  });
  it('has every field of the session objects', () => {
    const objects: Record<string, string> = {
      'Challenge request': 'ChallengeRequest',
      'Challenge response': 'ChallengeResponse',
      'Verify request': 'VerifyRequest',
      'Verify response': 'VerifyResponse',
      'Register request': 'RegisterRequest',
      'Register response': 'RegisterResponse',
    };
    const rows = table('Wallet session objects (E)');
    expect(rows.map((r) => r.Object)).toEqual(Object.keys(objects));
    for (const row of rows) {
      const fields = splitTopLevel(row.Fields!).map((f) => /^[A-Za-z]+/.exec(f)![0]);
      const shape = objectShape(wallet, schemaRef(objects[row.Object!]!));
      for (const field of fields) expect(shape.required.has(field), `${row.Object}.${field}`).toBe(true);
    }
  });
});

describe('B: webhooks', () => {
  let messages: { event: string; payload: ReturnType<typeof objectShape>; headers: string[] }[] = [];
  beforeAll(async () => {
    const { document } = await new Parser().parse(JSON.stringify(loadSpec('webhooks.asyncapi.yaml')));
    messages = document!
      .operations()
      .all()
      .flatMap((op) =>
        op
          .messages()
          .all()
          .map((m) => {
            const headers = m.headers()?.json() as {
              properties: Record<string, { const?: string }>;
              required: string[];
            };
            const payload = m.payload()!.json();
            return {
              event: headers.properties['X-SVC-Event']!.const!,
              payload: objectShape({}, payload),
              headers: headers.required,
            };
          }),
      );
  });

  it('has one message per event type of the Events table', () => {
    const events = table('Webhook events (B)').map((r) => r['Event type']!);
    expect([...new Set(messages.map((m) => m.event))].sort()).toEqual([...events].sort());
  });
  it('requires the four X-SVC-* delivery headers on every message', () => {
    const headers = table('Webhook events (B)', 1).map((r) => r.Header!);
    for (const m of messages) expect([...m.headers].sort(), m.event).toEqual(expect.arrayContaining(headers));
  });
  it('payment.settled shows every payload field except failRsn; payment.failed carries failRsn', () => {
    const fields = tableFields('Payment event payload (B)').map((f) => f.name);
    const settled = messages.find((m) => m.event === 'payment.settled')!;
    for (const f of fields.filter((f) => f !== 'failRsn'))
      expect(settled.payload.required.has(f), `settled.${f}`).toBe(true);
    expect(settled.payload.required.has('failRsn')).toBe(false);
    expect(messages.find((m) => m.event === 'payment.failed')!.payload.required.has('failRsn')).toBe(true);
  });
  it('writes the retry schedule into the contract', () => {
    const schedule = table('Webhook events (B)', 2);
    expect(schedule.map((r) => r.Attempt)).toEqual(['1', '2', '3', '4', '5']);
    const doc = loadSpec('webhooks.asyncapi.yaml') as Record<string, Record<string, unknown>>;
    // spec: immediate, 30 seconds, 5 minutes, 30 minutes, 2 hours; then DEAD.
    expect(doc['x-retry-schedule']).toEqual(
      [0, 30, 300, 1800, 7200].map((delaySeconds, i) => ({ attempt: i + 1, delaySeconds })),
    );
    expect(doc['x-delivery']).toMatchObject({ responseTimeoutSeconds: 10 });
    expect(doc['x-signature']).toMatchObject({
      algorithm: 'HMAC-SHA256',
      signedString: '<timestamp>.<raw_body>',
      replayWindowSeconds: 300,
    });
  });
});

describe('F: evidence document', () => {
  it('has every top-level field, required as the table says, and allows extra top-level properties', () => {
    const rows = table('Evidence document (F)');
    const required = section('Evidence document (F)')
      .join(' ')
      .match(/Top-level required fields: ([^.]+)\./)![1]!
      .split(',')
      .map((s) => s.trim());
    expect(new Set(evidence.required as string[])).toEqual(new Set(required));
    for (const row of rows) {
      // Dotted rows (conformance.acvp) name a property of a property.
      const [top, ...nested] = row.Field!.replace(/`/g, '').split('.');
      let schema: unknown = { $ref: '#' };
      for (const name of [top!, ...nested]) {
        const shape = objectShape(evidence, schema);
        expect(Object.keys(shape.properties), row.Field).toContain(name);
        schema = shape.properties[name];
      }
      const type = jsonType(row.Type!);
      if (type) expect([...typesOf(evidence, schema)], `${row.Field} type`).toContain(type);
    }
    expect(evidence.additionalProperties).not.toBe(false);
  });
});
