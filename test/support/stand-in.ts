// A stand-in in front of a target's service host: a small HTTPS server on loopback (the harness receiver's
// certificate) that passes each request on to the target and answers what `bend` makes of it. A test gives the
// reference a fault this way (a longer cache, a reordered list) and shows that the check naming the rule fails.
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { request } from '../../conformance/http.ts';
import type { Target } from '../../conformance/targets/target.ts';
import { receiverTls } from '../../conformance/webhooks/receiver-tls.ts';

/** One answer of the target, as the stand-in passes it on. */
export type Answer = { status: number; headers: Record<string, string>; text: string };

/** Makes the answer to `path` (below the host, query included); `forward()` asks the target. */
export type Bend = (path: string, forward: () => Promise<Answer>) => Promise<Answer>;

/** The headers an answer keeps: its type and the rate limit's Retry-After. */
const KEPT = ['content-type', 'retry-after'];

/**
 * Starts the stand-in in front of `behind`'s service host (its target then has that host only, with `behind`'s
 * admin token and reference controls), or with `origin: 'wallet'` in front of its wallet origin (its target is
 * `behind` with the stand-in as wallet origin).
 */
export async function startStandIn(
  behind: Target,
  bend: Bend,
  { origin = 'base' }: { origin?: 'base' | 'wallet' } = {},
): Promise<{ target: Target; close(): Promise<void> }> {
  const upstream = origin === 'wallet' ? (behind.wallet as URL) : behind.base;
  const tls = await receiverTls();
  const server = https.createServer({ cert: tls.cert, key: tls.key }, async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const path = (req.url ?? '/').slice(1);
    const forward = async (): Promise<Answer> => {
      const headers: Record<string, string> = {};
      for (const name of ['content-type', 'authorization', 'idempotency-key'])
        if (typeof req.headers[name] === 'string') headers[name] = req.headers[name];
      const got = await request(behind, new URL(path, upstream), {
        method: req.method ?? 'GET',
        headers,
        retryLimited: false,
        ...(chunks.length ? { body: Buffer.concat(chunks).toString('utf8') } : {}),
      });
      return { status: got.status, headers: got.headers, text: got.text };
    };
    const answer = await bend(path, forward);
    const headers = Object.fromEntries(KEPT.filter((h) => answer.headers[h]).map((h) => [h, answer.headers[h]!]));
    res.writeHead(answer.status, headers).end(answer.text);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(`https://127.0.0.1:${(server.address() as AddressInfo).port}/`);
  const close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  if (origin === 'wallet')
    return { target: { ...behind, wallet: url, caCert: [behind.caCert ?? '', tls.caCert].join('\n') }, close };
  const target: Target = {
    kind: behind.kind,
    base: url,
    caCert: tls.caCert,
    capabilities: new Set([...behind.capabilities].filter((c) => c !== 'wallet' && c !== 'site')),
    ...(behind.adminToken ? { adminToken: behind.adminToken } : {}),
    ...(behind.reference ? { reference: behind.reference } : {}),
  };
  return { target, close };
}
