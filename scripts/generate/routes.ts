/**
 * OpenAPI → `generated/<surface>/routes.gen.ts`: every operation's method, Fastify path and operationId,
 * and the map from `METHOD /path` to operationId, so the server registers exactly the contract's routes and
 * the conformance checks name its operations (house rule 2: route schemas and types come only from generated/).
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { generatedHeader, openApiSurfaces, type OutputRoot } from './paths.ts';
import { loadSpec } from './spec-loader.ts';

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

/** Writes the route table of every OpenAPI contract. */
export function generateRouteTables({ generatedDir }: OutputRoot): void {
  for (const surface of openApiSurfaces) {
    const doc = loadSpec(surface.spec);
    const basePath = new URL(String((doc.servers as { url: string }[])[0]!.url)).pathname.replace(/\/$/, '');
    const rows: string[] = [];
    const operations: string[] = [];
    for (const [specPath, item] of Object.entries(
      doc.paths as Record<string, Record<string, { operationId: string }>>,
    )) {
      for (const method of METHODS) {
        const operation = item[method];
        if (!operation) continue;
        const url = specPath.replace(/\{([^}]+)\}/g, ':$1');
        rows.push(`  { method: '${method.toUpperCase()}', url: '${url}', operationId: '${operation.operationId}' },`);
        operations.push(`  '${method.toUpperCase()} ${specPath}': '${operation.operationId}',`);
      }
    }
    writeFileSync(
      path.join(generatedDir, surface.name, 'routes.gen.ts'),
      [
        ...generatedHeader(surface.spec),
        '',
        "import type { RouteHandlers } from './fastify.gen.ts';",
        '',
        "/** The base path of the contract's first server. */",
        `export const basePath = '${basePath}';`,
        '',
        '/** Every operation of the contract: HTTP method, Fastify URL (relative to basePath) and operationId. */',
        'export const routes: readonly { method: string; url: string; operationId: keyof RouteHandlers }[] = [',
        ...rows,
        '];',
        '',
        '/** Every operation of the contract as `METHOD /path` (the path as the contract writes it), with its operationId. */',
        'export const operations = {',
        ...operations,
        '} as const satisfies Record<string, keyof RouteHandlers>;',
        '',
        '/** One operation of the contract, as `METHOD /path`. */',
        'export type Operation = keyof typeof operations;',
        '',
      ].join('\n'),
    );
  }
}
