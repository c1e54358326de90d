/**
 * `npm run generate` / `svckit generate`: writes `generated/` and `mocks/*.gen.ts` from `specs/`.
 * Deterministic: the same specs always give byte-identical files (checked in `npm test`).
 */
import { generateAsyncApi } from './asyncapi.ts';
import { generateEvidence } from './evidence.ts';
import { generateOpenApiMocks } from './mocks.ts';
import { generateOtherMocks } from './mocks-rpc.ts';
import { generateOpenApi } from './openapi.ts';
import { generateOpenRpc } from './openrpc.ts';
import { outputRoot } from './paths.ts';
import { generateRouteTables } from './routes.ts';

/** Runs every generator, writing under `root` (default: the repository); returns the elapsed milliseconds. */
export async function generateAll(root?: string): Promise<number> {
  const started = performance.now();
  const out = outputRoot(root);
  await generateOpenApi(out);
  generateRouteTables(out);
  generateOpenApiMocks(out);
  await generateAsyncApi(out);
  await generateOpenRpc(out);
  await generateEvidence(out);
  generateOtherMocks(out);
  return performance.now() - started;
}
