// Surface E: generated SDK calls compile and run against the generated MSW mocks.
import { setupServer } from 'msw/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../generated/wallet/client';
import * as sdk from '../../generated/wallet/sdk.gen';
import { exampleHandlers } from '../../mocks/wallet.gen';
import { sweepOperations } from './sweep.ts';

const server = setupServer(...exampleHandlers());
beforeAll(() => server.listen({ onUnhandledFrame: 'error' }));
afterAll(() => server.close());
const client = createClient({ baseUrl: 'https://localhost:8444' });

describe('wallet session SDK against the mocks', () => {
  it('asks for a challenge and reads the fee configuration', async () => {
    const challenge = await sdk.walletCreateChallenge({
      client,
      body: { address: '0x5B38Da6a701c568545dCfcB03FcB875f56beddC4', svcId: '53354aa95a511425' },
    });
    expect(challenge.data?.nonce).toMatch(/^[0-9a-f]{32}$/);
    expect(challenge.data?.message).toContain(`Nonce: ${challenge.data?.nonce}`);
    const fees = await sdk.walletGetFeeConfig({ client });
    expect(fees.data?.feeBps).toBeGreaterThanOrEqual(0);
  });

  it('is redirected to the signed extension download', async () => {
    const download = await sdk.walletDownloadExtension({ client, redirect: 'manual' });
    expect(download.response?.status).toBe(302);
    expect(download.response?.headers.get('location')).toMatch(/\.zip$/);
  });

  it('answers every operation with its contract example', async () => {
    expect(await sweepOperations('wallet.openapi.yaml', sdk, client)).toBe(28);
  });
});
