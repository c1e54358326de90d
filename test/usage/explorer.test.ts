// Surface D: generated SDK calls compile and run against the generated MSW mocks.
import { setupServer } from 'msw/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../generated/explorer/client';
import * as sdk from '../../generated/explorer/sdk.gen';
import { exampleHandlers } from '../../mocks/explorer.gen';
import { sweepOperations } from './sweep.ts';

const server = setupServer(...exampleHandlers());
beforeAll(() => server.listen({ onUnhandledFrame: 'error' }));
afterAll(() => server.close());
const client = createClient({ baseUrl: 'https://localhost:8443/api' });

describe('explorer SDK against the mocks', () => {
  it('reads stats, recent blocks and the governance view', async () => {
    const stats = await sdk.explorerGetStats({ client });
    expect(stats.data?.avgBlockTime).toMatch(/^\d+\.\d{2}$/);
    const blocks = await sdk.explorerListBlocks({ client });
    expect(blocks.data?.length).toBeLessThanOrEqual(10);
    const governance = await sdk.explorerGetGovernance({ client });
    expect(governance.data?.qbft).toMatchObject({ blockPeriodSeconds: 2, requestTimeoutSeconds: 10 });
  });

  it('answers every operation with its contract example', async () => {
    expect(await sweepOperations('explorer.openapi.yaml', sdk, client)).toBe(8);
  });
});
