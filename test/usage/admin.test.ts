// Admin console: generated SDK calls compile and run against the generated MSW mocks.
import { setupServer } from 'msw/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../generated/admin/client';
import * as sdk from '../../generated/admin/sdk.gen';
import { exampleHandlers } from '../../mocks/admin.gen';
import { sweepOperations } from './sweep.ts';

const server = setupServer(...exampleHandlers());
beforeAll(() => server.listen({ onUnhandledFrame: 'error' }));
afterAll(() => server.close());
const client = createClient({
  baseUrl: 'https://localhost:8443/admin/v1',
  headers: { Authorization: 'Bearer svcadm_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' },
});

describe('admin SDK against the mocks', () => {
  it('issues an API key whose raw token is shown once', async () => {
    const created = await sdk.adminCreateApiKey({
      client,
      body: { name: 'reconciliation', permissions: ['accounts:read'] },
    });
    expect(created.data?.token).toMatch(/^svc_[A-Za-z0-9_-]{43}$/);
    const listed = await sdk.adminListApiKeys({ client });
    expect(JSON.stringify(listed.data)).not.toContain(created.data!.token);
  });

  it('answers every operation with its contract example', async () => {
    expect(await sweepOperations('admin.openapi.yaml', sdk, client)).toBe(35);
  });
});
