// The integrator's view of surface A: a client generated from specs/institutional.openapi.yaml (hey-api)
// reads an account and its statement and sends a transfer that confirms, authenticated either by the
// svckit helper signRequestsWithMldsa (SVC-MLDSA on every request) or by a bearer key.
import https from 'node:https';
import { createClient } from '@svckit/sdk/institutional/client';
import * as sdk from '@svckit/sdk/institutional';
import { signRequestsWithMldsa } from '@svckit/sdk/signer';
import type { Check } from '../../catalogue.ts';
import type { Target } from '../../targets/target.ts';
import { verdict } from '../define.ts';
import { defineCheck, fixture, serverNow, sleep, smallAmount, WITH_ADMIN, type Fixture } from './support.ts';

/** One exchange over node:https, trusting the target's CA (the generated client takes any fetch). */
function exchange(target: Target, request: Request, body: Buffer | undefined): Promise<Response> {
  return new Promise((resolve, reject) => {
    const headers = {
      ...Object.fromEntries(request.headers),
      ...(body ? { 'content-length': String(body.length) } : {}),
    };
    const req = https.request(
      request.url,
      { method: request.method, headers, ca: target.caCert, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const status = res.statusCode ?? 0;
          const answered = Object.entries(res.headers).flatMap(([k, v]) =>
            v === undefined ? [] : [[k, Array.isArray(v) ? v.join(', ') : v] as [string, string]],
          );
          resolve(
            new Response(status === 204 || status === 304 ? null : Buffer.concat(chunks), {
              status,
              headers: answered,
            }),
          );
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** A fetch for the generated client: the target's CA, and a 429 waited out (spec: "10 requests per second per IP"). */
export function targetFetch(target: Target): typeof fetch {
  return (async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = input instanceof Request ? input : new Request(input, init);
    const body = request.body ? Buffer.from(await request.arrayBuffer()) : undefined;
    for (let attempt = 0; ; attempt++) {
      const response = await exchange(target, request, body);
      if (response.status !== 429 || attempt === 8) return response;
      await sleep(Math.max(1, Number(response.headers.get('retry-after')) || 1) * 1000 + 20);
    }
  }) as typeof fetch;
}

/** Reads the sender and its statement and sends a transfer that confirms, through `client`; returns problems. */
async function integratorFlow(f: Fixture, client: ReturnType<typeof createClient>): Promise<string[]> {
  const problems: string[] = [];
  const account = await sdk.institutionalGetAccount({ client, path: { id: f.sender.id } });
  if (account.error || account.data?.id !== f.sender.id)
    problems.push(
      `institutionalGetAccount: HTTP ${account.response?.status} ${JSON.stringify(account.error ?? account.data)}`,
    );
  const statement = await sdk.institutionalGetAccountStatement({
    client,
    path: { id: f.sender.id },
    query: { page: 1, limit: 10 },
  });
  if (statement.error || !statement.data?.transactions.length)
    problems.push(
      `institutionalGetAccountStatement: HTTP ${statement.response?.status} ${JSON.stringify(statement.error ?? statement.data)}`,
    );
  const created = await sdk.institutionalCreateTransfer({
    client,
    body: {
      fromAccountId: f.sender.id,
      to: f.recipient.address,
      amount: smallAmount(),
      memo: 'sent with the generated SDK',
    },
  });
  if (created.error || created.response?.status !== 201 || created.data?.status !== 'pending') {
    return [
      ...problems,
      `institutionalCreateTransfer: HTTP ${created.response?.status} ${JSON.stringify(created.error ?? created.data)}`,
    ];
  }
  const deadline = Date.now() + 30_000;
  for (;;) {
    const read = await sdk.institutionalGetTransfer({ client, path: { reference: created.data.txRef } });
    if (read.error)
      return [...problems, `institutionalGetTransfer: HTTP ${read.response?.status} ${JSON.stringify(read.error)}`];
    if (read.data?.status === 'confirmed' && read.data.blockNumber !== null) return problems;
    if (read.data?.status === 'failed' || Date.now() > deadline)
      return [...problems, `the transfer is ${read.data?.status}, expected confirmed`];
    await sleep(200);
  }
}

const baseUrl = (target: Target) => new URL('wallet/api/v1', target.base).href;

/** The integrator checks. */
export function institutionalSdkChecks(): Check[] {
  return [
    defineCheck({
      id: 'institutional.sdk.mldsa_client',
      title:
        'A generated SDK client with signRequestsWithMldsa reads an account and its statement and sends a transfer that confirms',
      source: {
        quote:
          'The client generates the key pair locally and registers only the public key through an administrator console',
      },
      needs: WITH_ADMIN,
      async run(ctx) {
        const f = await fixture(ctx.target);
        const client = createClient({ baseUrl: baseUrl(ctx.target), fetch: targetFetch(ctx.target) });
        signRequestsWithMldsa(client, f.keys, () => serverNow(ctx.target));
        return verdict(await integratorFlow(f, client));
      },
    }),
    defineCheck({
      id: 'institutional.sdk.bearer_client',
      title:
        'A generated SDK client with a bearer svc_ key reads an account and its statement and sends a transfer that confirms',
      source: { quote: 'Header Authorization: Bearer svc_<API_KEY>' },
      needs: WITH_ADMIN,
      async run(ctx) {
        const f = await fixture(ctx.target);
        const client = createClient({
          baseUrl: baseUrl(ctx.target),
          fetch: targetFetch(ctx.target),
          headers: { Authorization: `Bearer ${f.full}` },
        });
        return verdict(await integratorFlow(f, client));
      },
    }),
  ];
}
