/**
 * OpenAPI → types, SDK, zod validators, Fastify route types and MSW handlers, through
 * @hey-api/openapi-ts (DESIGN.md: "validator: { request: false, response: 'zod' }", because
 * its request validator mishandles header parameters).
 */
import path from 'node:path';
import { createClient } from '@hey-api/openapi-ts';
import { generatedHeader, type OutputRoot, openApiSurfaces } from './paths.ts';
import { SPECS_DIR } from '../../src/paths.ts';

/** Generates `generated/<surface>/` for every OpenAPI contract, in one hey-api run. */
export async function generateOpenApi({ generatedDir }: OutputRoot): Promise<void> {
  await createClient(
    openApiSurfaces.map((surface) => ({
      input: path.join(SPECS_DIR, surface.spec),
      output: {
        path: path.join(generatedDir, surface.name),
        clean: true,
        // Relative imports name their `.ts` file, so Node's own type stripping loads the SDKs (package.json
        // `exports`), as it does src/; extensionless imports need tsx or a bundler.
        importFileExtension: '.ts',
        header: generatedHeader(surface.spec),
      },
      logs: { level: 'silent' as const, file: false },
      plugins: [
        '@hey-api/typescript',
        '@hey-api/client-fetch',
        { name: '@hey-api/sdk', validator: { request: false, response: 'zod' } },
        'zod',
        '@hey-api/schemas',
        'fastify',
        // Examples come from mocks/*.gen.ts (each operation's `default` example), not from hey-api's
        // examples plugin, which also trips over `x-` keys on path items.
        { name: 'msw', source: [] },
      ],
    })) as Parameters<typeof createClient>[0],
  );
}
