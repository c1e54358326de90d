// Pairs of contracts that differ by one change each (D-247): each must be reported with its exact rule id and
// level, and nothing else above info. A second set of changes that break no client must not be reported as
// breaking.
import { describe, expect, it } from 'vitest';
import { diffContract, ruleCatalogue } from '../../conformance/diff/index.ts';
import type { Level } from '../../conformance/diff/model.ts';
import { ASYNCAPI, contract, JSONSCHEMA, OPENAPI, OPENRPC } from './fixtures.ts';

// biome-ignore lint/suspicious/noExplicitAny: each pair edits a fixture document at its own depth
type Doc = Record<string, any>;
type Pair = [title: string, file: string, base: Doc, change: (doc: Doc) => void, expected: [string, Level][]];

const API = 'institutional.openapi.yaml';
const HOOKS = 'webhooks.asyncapi.yaml';
const RPC = 'chain.openrpc.json';
const SCHEMA = 'evidence.schema.json';
const account = (doc: Doc) => doc.components.schemas.Account;
const create = (doc: Doc) => doc.components.schemas.AccountCreate;
const payment = (doc: Doc) => doc.components.schemas.Payment;
const headers = (doc: Doc) => doc.components.messageTraits.Signed.headers;
const balance = (doc: Doc) => doc.methods[0];

const BREAKING: Pair[] = [
  // OpenAPI
  ['a path removed', API, OPENAPI, (d) => delete d.paths['/accounts/{id}'], [['openapi.path_removed', 'breaking']]],
  [
    'an operation removed',
    API,
    OPENAPI,
    (d) => delete d.paths['/accounts/{id}'].delete,
    [['openapi.operation_removed', 'breaking']],
  ],
  [
    'a required parameter added',
    API,
    OPENAPI,
    (d) =>
      d.paths['/accounts'].get.parameters.push({
        name: 'owner',
        in: 'query',
        required: true,
        schema: { type: 'string' },
      }),
    [['openapi.required_request_parameter_added', 'breaking']],
  ],
  [
    'a parameter made required',
    API,
    OPENAPI,
    (d) => (d.paths['/accounts'].get.parameters[0].required = true),
    [['openapi.request_parameter_became_required', 'breaking']],
  ],
  [
    'a parameter maximum lowered',
    API,
    OPENAPI,
    (d) => (d.paths['/accounts'].get.parameters[0].schema.maximum = 100),
    [['openapi.request.bound_tightened', 'breaking']],
  ],
  [
    'a required body property added',
    API,
    OPENAPI,
    (d) => {
      create(d).properties.owner = { type: 'string' };
      create(d).required.push('owner');
    },
    [['openapi.request.required_property_added', 'breaking']],
  ],
  [
    'a body property made required',
    API,
    OPENAPI,
    (d) => create(d).required.push('currency'),
    [['openapi.request.property_became_required', 'breaking']],
  ],
  [
    'a request type narrowed',
    API,
    OPENAPI,
    (d) => (create(d).properties.note.type = 'integer'),
    [['openapi.request.type_narrowed', 'breaking']],
  ],
  [
    'a request format added',
    API,
    OPENAPI,
    (d) => (create(d).properties.note.format = 'email'),
    [['openapi.request.format_added', 'breaking']],
  ],
  [
    'a request pattern added',
    API,
    OPENAPI,
    (d) => (create(d).properties.note.pattern = '^[a-z]*$'),
    [['openapi.request.pattern_added', 'breaking']],
  ],
  [
    'a request maxLength lowered',
    API,
    OPENAPI,
    (d) => (create(d).properties.name.maxLength = 32),
    [['openapi.request.bound_tightened', 'breaking']],
  ],
  [
    'a request enum value removed',
    API,
    OPENAPI,
    (d) => (create(d).properties.currency.enum = ['USD']),
    [['openapi.request.enum_value_removed', 'breaking']],
  ],
  [
    'a required request body added',
    API,
    OPENAPI,
    (d) =>
      (d.paths['/accounts/{id}'].delete.requestBody = {
        required: true,
        content: { 'application/json': { schema: { type: 'object' } } },
      }),
    [['openapi.required_request_body_added', 'breaking']],
  ],
  [
    'a request body removed',
    API,
    OPENAPI,
    (d) => delete d.paths['/accounts'].post.requestBody,
    [['openapi.request_body_removed', 'warning']],
  ],
  [
    'a request media type removed',
    API,
    OPENAPI,
    (d) => {
      const body = d.paths['/accounts'].post.requestBody;
      body.content = { 'application/xml': body.content['application/json'] };
    },
    [['openapi.request_media_type_removed', 'breaking']],
  ],
  [
    'a response property removed',
    API,
    OPENAPI,
    (d) => delete account(d).properties.balance,
    [['openapi.response.property_removed', 'breaking']],
  ],
  [
    'a response property no longer required',
    API,
    OPENAPI,
    (d) => (account(d).required = ['id', 'name']),
    [['openapi.response.property_became_optional', 'breaking']],
  ],
  [
    'a response type widened',
    API,
    OPENAPI,
    (d) => (account(d).properties.balance.type = ['string', 'null']),
    [['openapi.response.type_widened', 'breaking']],
  ],
  [
    'a response enum value added',
    API,
    OPENAPI,
    (d) => account(d).properties.status.enum.push('frozen'),
    [['openapi.response.enum_value_added', 'warning']],
  ],
  [
    'a documented status removed',
    API,
    OPENAPI,
    (d) => delete d.paths['/accounts/{id}'].get.responses['404'],
    [['openapi.response_status_removed', 'breaking']],
  ],
  [
    'a security requirement added',
    API,
    OPENAPI,
    (d) => (d.paths['/accounts'].post.security = [{ bearer: [], mtls: [] }]),
    [['openapi.security_requirement_added', 'breaking']],
  ],
  [
    'a security alternative removed',
    API,
    OPENAPI,
    (d) => (d.security = [{ mtls: [] }]),
    [['openapi.security_alternative_removed', 'breaking']],
  ],
  [
    'a server base path changed',
    API,
    OPENAPI,
    (d) => (d.servers = [{ url: 'https://api.example.com/v2' }]),
    [['openapi.server_base_path_changed', 'breaking']],
  ],
  [
    'an operation deprecated',
    API,
    OPENAPI,
    (d) => (d.paths['/accounts/{id}'].delete.deprecated = true),
    [['openapi.operation_deprecated', 'warning']],
  ],
  [
    'a response media type removed',
    API,
    OPENAPI,
    (d) => {
      const ok = d.paths['/accounts/{id}'].get.responses['200'];
      ok.content = { 'application/xml': ok.content['application/json'] };
    },
    [['openapi.response_media_type_removed', 'breaking']],
  ],
  [
    'a response format changed',
    API,
    OPENAPI,
    (d) => (account(d).properties.id.format = 'ulid'),
    [['openapi.response.format_changed', 'breaking']],
  ],
  [
    'a response format removed',
    API,
    OPENAPI,
    (d) => delete account(d).properties.id.format,
    [['openapi.response.format_removed', 'warning']],
  ],
  [
    'a request limited to an enum',
    API,
    OPENAPI,
    (d) => (create(d).properties.note.enum = ['a', 'b']),
    [['openapi.request.enum_added', 'breaking']],
  ],
  // AsyncAPI
  [
    'a channel removed',
    HOOKS,
    ASYNCAPI,
    (d) => {
      delete d.channels.deliveries;
      d.operations = {};
    },
    [
      ['asyncapi.channel_removed', 'breaking'],
      ['asyncapi.event_type_removed', 'breaking'],
      ['asyncapi.operation_removed', 'breaking'],
    ],
  ],
  [
    'a message removed',
    HOOKS,
    ASYNCAPI,
    (d) => {
      delete d.channels.deliveries.messages.failed;
      delete d.operations.deliverFailed;
    },
    [
      ['asyncapi.message_removed', 'breaking'],
      ['asyncapi.event_type_removed', 'breaking'],
      ['asyncapi.operation_removed', 'breaking'],
    ],
  ],
  [
    'an event type removed',
    HOOKS,
    ASYNCAPI,
    (d) => (d.components.messages.failed['x-event'] = 'payment.errored'),
    [
      ['asyncapi.event_type_removed', 'breaking'],
      ['asyncapi.event_type_added', 'warning'],
    ],
  ],
  [
    'a channel address changed',
    HOOKS,
    ASYNCAPI,
    (d) => (d.channels.deliveries.address = '/events'),
    [['asyncapi.channel_address_changed', 'breaking']],
  ],
  [
    'a payload property removed',
    HOOKS,
    ASYNCAPI,
    (d) => delete payment(d).properties.memo,
    [['asyncapi.payload.property_removed', 'breaking']],
  ],
  [
    'a payload property no longer required',
    HOOKS,
    ASYNCAPI,
    (d) => (payment(d).required = ['uetr', 'status']),
    [['asyncapi.payload.property_became_optional', 'breaking']],
  ],
  [
    'a payload type changed',
    HOOKS,
    ASYNCAPI,
    (d) => (payment(d).properties.amount.type = 'number'),
    [['asyncapi.payload.type_widened', 'breaking']],
  ],
  [
    'a payload enum value added',
    HOOKS,
    ASYNCAPI,
    (d) => payment(d).properties.status.enum.push('returned'),
    [['asyncapi.payload.enum_value_added', 'warning']],
  ],
  [
    'a header removed',
    HOOKS,
    ASYNCAPI,
    (d) => delete headers(d).properties['X-Delivery'],
    [['asyncapi.headers.property_removed', 'breaking']],
  ],
  [
    'a new required header',
    HOOKS,
    ASYNCAPI,
    (d) => {
      headers(d).properties['X-Timestamp'] = { type: 'string' };
      headers(d).required.push('X-Timestamp');
    },
    [['asyncapi.headers.required_property_added', 'breaking']],
  ],
  [
    'the signing algorithm changed',
    HOOKS,
    ASYNCAPI,
    (d) => (d['x-signature'].algorithm = 'HMAC-SHA512'),
    [['asyncapi.signing_changed', 'breaking']],
  ],
  [
    'the security scheme changed',
    HOOKS,
    ASYNCAPI,
    (d) => (d.components.securitySchemes.hmac.name = 'X-Signature'),
    [['asyncapi.security_changed', 'breaking']],
  ],
  [
    'an operation removed',
    HOOKS,
    ASYNCAPI,
    (d) => delete d.operations.deliverFailed,
    [['asyncapi.operation_removed', 'breaking']],
  ],
  [
    'an operation action reversed',
    HOOKS,
    ASYNCAPI,
    (d) => (d.operations.deliverFailed.action = 'receive'),
    [['asyncapi.operation_action_changed', 'breaking']],
  ],
  [
    'a payload removed',
    HOOKS,
    ASYNCAPI,
    (d) => delete d.components.messages.failed.payload,
    [['asyncapi.payload_removed', 'breaking']],
  ],
  [
    'a header made required',
    HOOKS,
    ASYNCAPI,
    (d) => headers(d).required.push('X-Delivery'),
    [['asyncapi.headers.property_became_required', 'breaking']],
  ],
  [
    'a signing rule newly stated',
    HOOKS,
    ASYNCAPI,
    (d) => (d['x-signature'].replayWindowSeconds = 300),
    [['asyncapi.signing_rule_added', 'warning']],
  ],
  [
    'a delivery rule changed',
    HOOKS,
    ASYNCAPI,
    (d) => (d['x-delivery'].maxAttempts = 3),
    [['asyncapi.delivery_changed', 'warning']],
  ],
  [
    'the HTTP binding Content-Type changed',
    HOOKS,
    ASYNCAPI,
    (d) =>
      (d.components.messageTraits.Signed.bindings.http.headers.properties['Content-Type'].const =
        'application/cloudevents+json'),
    [['asyncapi.headers.enum_value_added', 'warning']],
  ],
  // OpenRPC
  ['a method removed', RPC, OPENRPC, (d) => d.methods.pop(), [['openrpc.method_removed', 'breaking']]],
  [
    'a method renamed',
    RPC,
    OPENRPC,
    (d) => (d.methods[1].name = 'eth_getBlockByNumber'),
    [['openrpc.method_renamed', 'breaking']],
  ],
  [
    'a required param added',
    RPC,
    OPENRPC,
    (d) => balance(d).params.push({ name: 'proof', required: true, schema: { type: 'boolean' } }),
    [['openrpc.required_param_added', 'breaking']],
  ],
  ['a param removed', RPC, OPENRPC, (d) => balance(d).params.pop(), [['openrpc.param_removed', 'breaking']]],
  ['params reordered', RPC, OPENRPC, (d) => balance(d).params.reverse(), [['openrpc.param_reordered', 'breaking']]],
  [
    'a param made required',
    RPC,
    OPENRPC,
    (d) => (balance(d).params[1].required = true),
    [['openrpc.param_became_required', 'breaking']],
  ],
  [
    'a param enum value removed',
    RPC,
    OPENRPC,
    (d) => (balance(d).params[1].schema.enum = ['latest']),
    [['openrpc.param.enum_value_removed', 'breaking']],
  ],
  [
    'a param pattern changed',
    RPC,
    OPENRPC,
    (d) => (d.components.schemas.Address.pattern = '^0x[0-9a-f]{40}$'),
    [['openrpc.param.pattern_changed', 'warning']],
  ],
  [
    'a result type widened',
    RPC,
    OPENRPC,
    (d) => (d.methods[1].result.schema.properties.miner.type = ['string', 'null']),
    [['openrpc.result.type_widened', 'breaking']],
  ],
  [
    'a result property removed',
    RPC,
    OPENRPC,
    (d) => delete d.methods[1].result.schema.properties.miner,
    [['openrpc.result.property_removed', 'breaking']],
  ],
  [
    'an error code removed',
    RPC,
    OPENRPC,
    (d) => balance(d).errors.shift(),
    [['openrpc.error_code_removed', 'breaking']],
  ],
  [
    'the param structure changed',
    RPC,
    OPENRPC,
    (d) => (balance(d).paramStructure = 'by-name'),
    [['openrpc.param_structure_changed', 'breaking']],
  ],
  ['a result removed', RPC, OPENRPC, (d) => delete d.methods[1].result, [['openrpc.result_removed', 'breaking']]],
  [
    'a method deprecated',
    RPC,
    OPENRPC,
    (d) => (d.methods[1].deprecated = true),
    [['openrpc.method_deprecated', 'warning']],
  ],
  // JSON Schema
  [
    'a property added to required',
    SCHEMA,
    JSONSCHEMA,
    (d) => d.required.push('count'),
    [['jsonschema.property_became_required', 'breaking']],
  ],
  [
    'a new required property',
    SCHEMA,
    JSONSCHEMA,
    (d) => {
      d.properties.owner = { type: 'string' };
      d.required.push('owner');
    },
    [['jsonschema.required_property_added', 'breaking']],
  ],
  [
    'additionalProperties closed',
    SCHEMA,
    JSONSCHEMA,
    (d) => (d.additionalProperties = false),
    [['jsonschema.additional_properties_closed', 'breaking']],
  ],
  [
    'a type narrowed',
    SCHEMA,
    JSONSCHEMA,
    (d) => (d.properties.count.type = 'integer'),
    [['jsonschema.type_narrowed', 'breaking']],
  ],
  [
    'an enum value removed',
    SCHEMA,
    JSONSCHEMA,
    (d) => (d.properties.kind.enum = ['a']),
    [['jsonschema.enum_value_removed', 'breaking']],
  ],
  [
    'a maxLength lowered',
    SCHEMA,
    JSONSCHEMA,
    (d) => (d.properties.name.maxLength = 5),
    [['jsonschema.bound_tightened', 'breaking']],
  ],
  [
    'a minimum raised',
    SCHEMA,
    JSONSCHEMA,
    (d) => (d.properties.count.minimum = 1),
    [['jsonschema.bound_tightened', 'breaking']],
  ],
  [
    'a maxItems lowered',
    SCHEMA,
    JSONSCHEMA,
    (d) => (d.properties.tags.maxItems = 2),
    [['jsonschema.bound_tightened', 'breaking']],
  ],
  [
    'a oneOf variant removed',
    SCHEMA,
    JSONSCHEMA,
    (d) => d.properties.value.oneOf.pop(),
    [['jsonschema.variant_removed', 'breaking']],
  ],
];

const SAFE: Pair[] = [
  [
    'a second server',
    API,
    OPENAPI,
    (d) => d.servers.push({ url: 'https://api.example.com/v2' }),
    [['openapi.server_added', 'info']],
  ],
  [
    'a security alternative added',
    API,
    OPENAPI,
    (d) => d.security.push({ mtls: [] }),
    [['openapi.security_alternative_added', 'info']],
  ],
  [
    'an error code added',
    RPC,
    OPENRPC,
    (d) => d.methods[1].errors.push({ code: -32005, message: 'Limit exceeded' }),
    [['openrpc.error_code_added', 'info']],
  ],
  [
    'a oneOf variant added',
    SCHEMA,
    JSONSCHEMA,
    (d) => d.properties.value.oneOf.push({ type: 'boolean' }),
    [['jsonschema.variant_added', 'info']],
  ],
  [
    'a description edited',
    API,
    OPENAPI,
    (d) => (d.paths['/accounts'].get.description = 'Lists every account of the caller.'),
    [],
  ],
  [
    'an optional response property added',
    API,
    OPENAPI,
    (d) => (account(d).properties.label = { type: 'string' }),
    [['openapi.response.property_added', 'info']],
  ],
  [
    'a new operation',
    API,
    OPENAPI,
    (d) => (d.paths['/accounts/{id}'].patch = { responses: { '200': { description: 'ok' } } }),
    [['openapi.operation_added', 'info']],
  ],
  [
    'a new path',
    API,
    OPENAPI,
    (d) => (d.paths['/health'] = { get: { security: [], responses: { '200': { description: 'ok' } } } }),
    [['openapi.operation_added', 'info']],
  ],
  [
    'an optional parameter added',
    API,
    OPENAPI,
    (d) => d.paths['/accounts'].get.parameters.push({ name: 'cursor', in: 'query', schema: { type: 'string' } }),
    [['openapi.request_parameter_added', 'info']],
  ],
  [
    'a documented status added',
    API,
    OPENAPI,
    (d) => (d.paths['/accounts/{id}'].get.responses['429'] = { description: 'slow down' }),
    [['openapi.response_status_added', 'info']],
  ],
  [
    'a request enum value added',
    API,
    OPENAPI,
    (d) => create(d).properties.currency.enum.push('GBP'),
    [['openapi.request.enum_value_added', 'info']],
  ],
  [
    'a request maxLength raised',
    API,
    OPENAPI,
    (d) => (create(d).properties.name.maxLength = 128),
    [['openapi.request.bound_relaxed', 'info']],
  ],
  [
    'a response property made required',
    API,
    OPENAPI,
    (d) => account(d).required.push('balance'),
    [['openapi.response.property_became_required', 'info']],
  ],
  [
    'a request body property made optional',
    API,
    OPENAPI,
    (d) => (create(d).required = []),
    [['openapi.request.property_became_optional', 'info']],
  ],
  ['a payload description edited', HOOKS, ASYNCAPI, (d) => (payment(d).description = 'A payment.'), []],
  [
    'an optional payload property added',
    HOOKS,
    ASYNCAPI,
    (d) => (payment(d).properties.reference = { type: 'string' }),
    [['asyncapi.payload.property_added', 'info']],
  ],
  [
    'an optional param appended',
    RPC,
    OPENRPC,
    (d) => balance(d).params.push({ name: 'tag', schema: { type: 'string' } }),
    [['openrpc.param_added', 'info']],
  ],
  [
    'a new method',
    RPC,
    OPENRPC,
    (d) => d.methods.push({ name: 'net_version', params: [], result: { name: 'v', schema: { type: 'string' } } }),
    [['openrpc.method_added', 'info']],
  ],
  [
    'an optional schema property added',
    SCHEMA,
    JSONSCHEMA,
    (d) => (d.properties.extra = { type: 'string' }),
    [['jsonschema.property_added', 'info']],
  ],
  [
    'a schema enum value added',
    SCHEMA,
    JSONSCHEMA,
    (d) => d.properties.kind.enum.push('c'),
    [['jsonschema.enum_value_added', 'info']],
  ],
];

function run(file: string, base: Doc, change: (doc: Doc) => void) {
  const after = structuredClone(base);
  change(after);
  return diffContract(contract(file, base), contract(file, after));
}

const catalogue = ruleCatalogue();

describe('svckit diff: one change, one rule', () => {
  it('covers at least 40 breaking or warning pairs across the four formats', () => {
    const pairs = BREAKING.filter(([, , , , expected]) => expected.some(([, level]) => level !== 'info'));
    expect(pairs.length).toBeGreaterThanOrEqual(40);
    expect(new Set(pairs.map(([, file]) => file)).size).toBe(4);
  });

  it.each(BREAKING)('%s (%s)', (_title, file, base, change, expected) => {
    const changes = run(file, base, change);
    for (const [rule, level] of expected) {
      expect(
        changes.find((c) => c.rule === rule),
        `${rule} in ${JSON.stringify(changes.map((c) => c.rule))}`,
      ).toMatchObject({ level });
    }
    const above = new Set(changes.filter((c) => c.level !== 'info').map((c) => `${c.rule} ${c.level}`));
    expect([...above].sort()).toEqual(
      expected
        .filter(([, level]) => level !== 'info')
        .map(([rule, level]) => `${rule} ${level}`)
        .sort(),
    );
    for (const c of changes) expect(catalogue.get(c.rule), c.rule).toBe(c.level);
  });

  it.each(SAFE)('%s is not breaking (%s)', (_title, file, base, change, expected) => {
    const changes = run(file, base, change);
    expect(changes.filter((c) => c.level !== 'info')).toEqual([]);
    expect(changes.map((c) => c.rule).sort()).toEqual(expected.map(([rule]) => rule).sort());
  });
});
