// Surface A: generated SDK calls compile and run against the generated MSW mocks.
import { setupServer } from 'msw/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../generated/institutional/client';
import * as sdk from '../../generated/institutional/sdk.gen';
import type { TransferRequest } from '../../generated/institutional/types.gen';
import { exampleHandlers, exampleResponses } from '../../mocks/institutional.gen';
import { sweepOperations } from './sweep.ts';

const server = setupServer(...exampleHandlers());
beforeAll(() => server.listen({ onUnhandledFrame: 'error' }));
afterAll(() => server.close());

const client = createClient({
  baseUrl: 'https://localhost:8443/wallet/api/v1',
  headers: { Authorization: 'Bearer svc_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' },
});

describe('institutional SDK against the mocks', () => {
  it('reads an account, its statement and a transfer', async () => {
    const account = await sdk.institutionalGetAccount({ client, path: { id: 'acc_01JD3Z8Q4V6WQ8N2K7M5R9T3XA' } });
    expect(account.data).toEqual(exampleResponses.institutionalGetAccount.body);
    expect(account.data?.balance).toMatch(/^\d+\.\d{2}$/);
    const statement = await sdk.institutionalGetAccountStatement({
      client,
      path: { id: 'acc_01JD3Z8Q4V6WQ8N2K7M5R9T3XA' },
      query: { page: 1, limit: 50 },
    });
    expect(statement.data?.transactions.length).toBeGreaterThan(0);
    const transfer = await sdk.institutionalGetTransfer({ client, path: { reference: 'TXN20261121-7K3M9QZP' } });
    expect(transfer.data?.txRef).toMatch(/^TXN\d{8}-[0-9A-Z]{8}$/);
  });

  it('creates a transfer', async () => {
    const body: TransferRequest = {
      fromAccountId: 'acc_01JD3Z8Q4V6WQ8N2K7M5R9T3XA',
      to: '0xAb8483F64d9C6d1EcF9b849Ae677dD3315835cb2',
      amount: '125.50',
      memo: 'invoice 42',
    };
    const created = await sdk.institutionalCreateTransfer({ client, body });
    expect(created.response?.status).toBe(201);
    expect(created.data?.status).toBe('pending');
  });

  it('answers every operation with its contract example', async () => {
    expect(await sweepOperations('institutional.openapi.yaml', sdk, client)).toBe(8);
  });
});
