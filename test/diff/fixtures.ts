// Small contracts of each format, the "old" side of the pair tests: each pair changes one thing in a copy.
import type { Contract } from '../../conformance/diff/model.ts';

/** An OpenAPI 3.1 contract with shared components used by several operations. */
export const OPENAPI = {
  openapi: '3.1.0',
  info: { title: 'accounts', version: '1.0.0' },
  servers: [{ url: 'https://api.example.com/v1' }],
  security: [{ bearer: [] }],
  paths: {
    '/accounts': {
      get: {
        description: 'Lists the accounts.',
        parameters: [{ name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 200 } }],
        responses: {
          '200': {
            description: 'ok',
            content: { 'application/json': { schema: { $ref: '#/components/schemas/AccountList' } } },
          },
          '401': { description: 'no credential' },
        },
      },
      post: {
        requestBody: {
          required: true,
          content: { 'application/json': { schema: { $ref: '#/components/schemas/AccountCreate' } } },
        },
        responses: {
          '201': {
            description: 'created',
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Account' } } },
          },
        },
      },
    },
    '/accounts/{id}': {
      parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
      get: {
        responses: {
          '200': {
            description: 'ok',
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Account' } } },
          },
          '404': { description: 'unknown' },
        },
      },
      delete: { responses: { '204': { description: 'closed' } } },
    },
  },
  components: {
    securitySchemes: { bearer: { type: 'http', scheme: 'bearer' }, mtls: { type: 'mutualTLS' } },
    schemas: {
      AccountCreate: {
        type: 'object',
        required: ['name'],
        properties: {
          name: { type: 'string', maxLength: 64 },
          currency: { type: 'string', enum: ['USD', 'EUR'] },
          note: { type: 'string' },
        },
      },
      Account: {
        type: 'object',
        required: ['id', 'name', 'status'],
        properties: {
          id: { type: 'string', format: 'uuid' },
          name: { type: 'string' },
          status: { type: 'string', enum: ['active', 'closed'] },
          balance: { type: 'string' },
        },
      },
      AccountList: {
        type: 'object',
        required: ['items'],
        properties: { items: { type: 'array', items: { $ref: '#/components/schemas/Account' } } },
      },
    },
  },
};

/** An AsyncAPI 3.0 contract shaped like specs/webhooks.asyncapi.yaml: headers in a trait, x-signature, x-event. */
export const ASYNCAPI = {
  asyncapi: '3.0.0',
  info: { title: 'payments', version: '1.0.0' },
  'x-signature': { header: 'X-Sig', algorithm: 'HMAC-SHA256', signedString: '<timestamp>.<raw_body>' },
  'x-delivery': { maxAttempts: 5 },
  channels: {
    deliveries: {
      address: '/hooks',
      messages: {
        settled: { $ref: '#/components/messages/settled' },
        failed: { $ref: '#/components/messages/failed' },
      },
    },
  },
  operations: {
    deliverSettled: {
      action: 'send',
      channel: { $ref: '#/channels/deliveries' },
      security: [{ $ref: '#/components/securitySchemes/hmac' }],
      messages: [{ $ref: '#/channels/deliveries/messages/settled' }],
    },
    deliverFailed: {
      action: 'send',
      channel: { $ref: '#/channels/deliveries' },
      security: [{ $ref: '#/components/securitySchemes/hmac' }],
      messages: [{ $ref: '#/channels/deliveries/messages/failed' }],
    },
  },
  components: {
    securitySchemes: { hmac: { type: 'httpApiKey', name: 'X-Sig', in: 'header' } },
    messageTraits: {
      Signed: {
        headers: {
          type: 'object',
          required: ['X-Sig', 'X-Event'],
          properties: {
            'X-Sig': { type: 'string' },
            'X-Event': { type: 'string' },
            'X-Delivery': { type: 'string', format: 'uuid' },
          },
        },
        bindings: {
          http: {
            headers: { type: 'object', properties: { 'Content-Type': { type: 'string', const: 'application/json' } } },
          },
        },
      },
    },
    messages: {
      settled: {
        name: 'settled',
        'x-event': 'payment.settled',
        traits: [{ $ref: '#/components/messageTraits/Signed' }],
        payload: { $ref: '#/components/schemas/Payment' },
      },
      failed: {
        name: 'failed',
        'x-event': 'payment.failed',
        traits: [{ $ref: '#/components/messageTraits/Signed' }],
        payload: { $ref: '#/components/schemas/Payment' },
      },
    },
    schemas: {
      Payment: {
        type: 'object',
        required: ['uetr', 'amount', 'status'],
        properties: {
          uetr: { type: 'string', format: 'uuid' },
          amount: { type: 'string' },
          status: { type: 'string', enum: ['settled', 'failed'] },
          memo: { type: 'string' },
        },
      },
    },
  },
};

/** An OpenRPC contract with two methods and shared error and schema components. */
export const OPENRPC = {
  openrpc: '1.3.2',
  info: { title: 'chain', version: '1.0.0' },
  methods: [
    {
      name: 'eth_getBalance',
      paramStructure: 'by-position',
      params: [
        { name: 'address', required: true, schema: { $ref: '#/components/schemas/Address' } },
        { name: 'block', required: false, schema: { type: 'string', enum: ['latest', 'earliest', 'pending'] } },
      ],
      result: { name: 'balance', schema: { $ref: '#/components/schemas/Quantity' } },
      errors: [{ $ref: '#/components/errors/InvalidParams' }, { $ref: '#/components/errors/Internal' }],
    },
    {
      name: 'eth_getBlock',
      paramStructure: 'by-position',
      params: [{ name: 'number', required: true, schema: { $ref: '#/components/schemas/Quantity' } }],
      result: {
        name: 'block',
        schema: {
          type: 'object',
          required: ['hash', 'number'],
          properties: {
            hash: { type: 'string' },
            number: { $ref: '#/components/schemas/Quantity' },
            miner: { type: 'string' },
          },
        },
      },
      errors: [{ $ref: '#/components/errors/Internal' }],
    },
  ],
  components: {
    schemas: {
      Address: { type: 'string', pattern: '^0x[0-9a-fA-F]{40}$' },
      Quantity: { type: 'string', pattern: '^0x[0-9a-f]+$' },
    },
    errors: {
      InvalidParams: { code: -32602, message: 'Invalid params' },
      Internal: { code: -32603, message: 'Internal error' },
    },
  },
};

/** A JSON Schema 2020-12 document. */
export const JSONSCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  required: ['name'],
  properties: {
    name: { type: 'string', maxLength: 10 },
    count: { type: 'number', minimum: 0 },
    kind: { type: 'string', enum: ['a', 'b'] },
    tags: { type: 'array', maxItems: 5, items: { type: 'string' } },
    value: { oneOf: [{ type: 'string' }, { type: 'number' }] },
  },
};

/** A contract of the given document, named as in specs/. */
export function contract(name: string, document: unknown): Contract {
  const format = name.endsWith('.openapi.yaml')
    ? 'openapi'
    : name.endsWith('.asyncapi.yaml')
      ? 'asyncapi'
      : name.endsWith('.openrpc.json')
        ? 'openrpc'
        : 'jsonschema';
  return { name, format, document };
}
