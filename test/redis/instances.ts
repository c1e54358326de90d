// Two in-process reference instances that share one Redis and one PostgreSQL database, as several
// `svckit serve` behind a load balancer do, and an HTTPS client that keeps its connections open (so a burst
// measures the limits, not TLS handshakes).
import https from 'node:https';
import type { Stack } from '../../src/server/app.ts';
import type { ReadyEvent } from '../../src/server/main.ts';
import { startTestStack } from '../support/stack.ts';

/** One running instance. */
export type Instance = { stack: Stack; ready: ReadyEvent; agent: https.Agent; close(): Promise<void> };

/** Starts an instance on `databaseUrl` and `redisUrl` with the spec's institutional limit (10/s per IP). */
export async function startInstance(env: {
  DATABASE_URL: string;
  REDIS_URL?: string;
  /** Instances on one database share its key-encryption key (D-061). */
  SVC_KEK: string;
}): Promise<Instance> {
  const { stack, ready, close } = await startTestStack({ env: { SVC_RATE_LIMIT_RPC: '0', ...env } });
  const agent = new https.Agent({ keepAlive: true, maxSockets: 32, ca: stack.tls.caCert });
  return {
    stack,
    ready,
    agent,
    close: async () => {
      agent.destroy();
      await close();
    },
  };
}

/** An answer: status, headers and the JSON body. */
export type Answer = { status: number; headers: Record<string, string | string[] | undefined>; json: unknown };

/** Sends one request to the base origin of `instance`. */
export function call(
  instance: Instance,
  pathAndQuery: string,
  options: { method?: string; headers?: Record<string, string>; body?: unknown } = {},
): Promise<Answer> {
  const body = options.body === undefined ? undefined : JSON.stringify(options.body);
  return new Promise((resolve, reject) => {
    const request = https.request(
      new URL(pathAndQuery, instance.ready.base),
      {
        method: options.method ?? (body ? 'POST' : 'GET'),
        agent: instance.agent,
        headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...options.headers },
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          text += chunk;
        });
        response.on('end', () => {
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: response.statusCode ?? 0, headers: response.headers, json });
        });
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

/** Opens `count` keep-alive connections to `instance` through /rpc (not limited here, SVC_RATE_LIMIT_RPC 0). */
export async function warm(instance: Instance, count: number): Promise<void> {
  await Promise.all(
    Array.from({ length: count }, (_, id) =>
      call(instance, '/rpc', { body: { jsonrpc: '2.0', id, method: 'eth_chainId', params: [] } }),
    ),
  );
}

/** Waits `ms` milliseconds. */
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
