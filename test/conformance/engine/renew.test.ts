// A credential the deployment answers expired mid-run (a wallet session lives 15 minutes, D-005) is made afresh
// once, and every case that held it is sent again with the new one; a credential a case chose itself is not.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineClient } from '../../../conformance/engine/core/client.ts';
import type { EngineTarget } from '../../../conformance/engine/core/types.ts';
import { type RunContext, sendSafely } from '../../../conformance/engine/openapi/context.ts';
import { renewer } from '../../../conformance/engine/target.ts';

let server: http.Server;
let url: string;
const seen: string[] = [];
beforeAll(async () => {
  server = http.createServer((req, res) => {
    const auth = req.headers.authorization ?? '';
    seen.push(auth);
    const ok = auth === 'Bearer fresh-1';
    res
      .writeHead(ok ? 200 : 401, { 'content-type': 'application/json' })
      .end(ok ? '{"ok":true}' : JSON.stringify({ error: 'session token expired', code: 'TOKEN_EXPIRED' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/sync/devices`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

describe('renewing an expired credential', () => {
  it('renews once for 8 cases at once, resends each with the new credential, and leaves a chosen one alone', async () => {
    let renewals = 0;
    const credentials: Record<string, string> = { sessionToken: 'Bearer old' };
    const make = async () => {
      renewals += 1;
      await new Promise((resolve) => setTimeout(resolve, 20));
      return `Bearer fresh-${renewals}`;
    };
    const target: EngineTarget = {
      bases: {},
      credentials,
      renew: { sessionToken: renewer(credentials, 'sessionToken', make) },
    };
    const client = engineClient({ connections: 8 });
    const ctx = { client, target } as unknown as RunContext;
    try {
      const send = (authorization: string) =>
        sendSafely(ctx, { method: 'GET', url, headers: { authorization, accept: 'application/json' } });
      const answers = await Promise.all(Array.from({ length: 8 }, () => send('Bearer old')));
      expect(answers.map((a) => a.status)).toEqual(Array(8).fill(200));
      expect(renewals).toBe(1);
      expect((await send('Bearer not-a-credential-of-this-service')).status).toBe(401);
      expect(seen.filter((a) => a === 'Bearer fresh-1')).toHaveLength(8);
    } finally {
      client.close();
    }
  });
});
