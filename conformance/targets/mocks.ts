/**
 * The mocks target: the generated MSW mocks of the four OpenAPI contracts behind the validating mock service
 * (conformance/mocks/server.ts). It offers the contract-level answers only (the example of each operation, the
 * documented error for a request the contract refuses), so the catalogue's behaviour checks, which need
 * 'base', 'wallet' or 'admin', are skipped; the generated-case phases run against it.
 */
import { DEFAULT_SPECS_DIR } from '../runner.ts';
import { startMockService } from '../mocks/server.ts';
import type { Target } from './target.ts';

/** Starts the validating mocks and describes them as a target. */
export async function mocksTarget(specsDir: URL = DEFAULT_SPECS_DIR): Promise<Target> {
  const service = await startMockService(specsDir);
  return {
    kind: 'mocks',
    base: service.base,
    wallet: service.wallet,
    caCert: service.caCert,
    capabilities: new Set(['specs', 'mocks']),
    close: () => service.close(),
  };
}
