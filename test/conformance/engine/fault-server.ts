// A tiny contract and a Fastify server that breaks it on purpose, for the engine's fault-injection tests:
// it accepts a `limit` above the contract's maximum, answers 500 from limit 7 up, and an undocumented 418
// for limit 3, and takes no notice of a missing X-Client header.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';

/** The contract, written as the `explorer` surface's file of a temporary specs directory. */
export const FAULT_CONTRACT = `openapi: 3.1.0
info: { title: faults, version: '1' }
servers: [{ url: 'https://localhost/api' }]
paths:
  /items:
    get:
      parameters:
        - name: limit
          in: query
          required: true
          schema: { type: integer, minimum: 1, maximum: 10 }
          example: 2
        - name: X-Client
          in: header
          required: true
          schema: { type: string, pattern: '^[a-z]{1,8}$' }
          example: abc
      responses:
        '200':
          description: ok
          content:
            application/json:
              schema:
                type: object
                required: [items]
                additionalProperties: false
                properties:
                  items: { type: array, items: { type: integer } }
        '400':
          description: bad
          content:
            application/json:
              schema: { $ref: '#/components/schemas/Error' }
components:
  schemas:
    Error:
      type: object
      required: [error]
      properties:
        error: { type: string }
`;

/** Which faults the server injects. */
export type Faults = {
  acceptsAboveMaximum?: boolean;
  serverErrorFrom?: number;
  teapotAt?: number;
  ignoresClientHeader?: boolean;
};

/** Writes the contract into a fresh directory and returns it. */
export function faultSpecsDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'svckit-engine-specs-'));
  writeFileSync(path.join(dir, 'explorer.openapi.yaml'), FAULT_CONTRACT);
  return dir;
}

/** Starts the server on loopback; its base for the contract's paths is `<url>/api/`. */
export async function faultServer(faults: Faults): Promise<{ app: FastifyInstance; base: URL }> {
  const app = Fastify();
  app.get('/api/items', async (request, reply) => {
    const raw = (request.query as { limit?: string }).limit;
    const limit = Number(raw);
    const client = request.headers['x-client'];
    if (!faults.ignoresClientHeader && (typeof client !== 'string' || !/^[a-z]{1,8}$/.test(client)))
      return reply
        .code(400)
        .send({ error: `"X-Client" expected 1 to 8 lower-case letters, got ${JSON.stringify(client)}` });
    if (raw === undefined || !/^-?\d+$/.test(raw) || limit < 1 || (limit > 10 && !faults.acceptsAboveMaximum))
      return reply.code(400).send({ error: `"limit" expected an integer from 1 to 10, got ${JSON.stringify(raw)}` });
    if (faults.serverErrorFrom !== undefined && limit >= faults.serverErrorFrom)
      return reply.code(500).send({ error: 'internal' });
    if (faults.teapotAt === limit) return reply.code(418).send({ error: 'teapot' });
    return { items: Array.from({ length: Math.min(limit, 10) }, (_, i) => i) };
  });
  for (const method of ['POST', 'PUT', 'PATCH', 'DELETE'] as const)
    app.route({
      method,
      url: '/api/items',
      handler: async (_request, reply) => reply.code(405).send({ error: 'method not allowed' }),
    });
  const address = await app.listen({ host: '127.0.0.1', port: 0 });
  return { app, base: new URL(`${address}/api/`) };
}
