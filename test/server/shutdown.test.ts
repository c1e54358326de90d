// The drain of the graceful shutdown (D-264, src/server/shutdown.ts) on a real Fastify origin over loopback HTTP
// with kept-alive client connections: /readyz fails at once on a connection opened before, new connections are
// refused, the request in flight finishes and its answer closes its connection, idle connections are closed
// after the grace, and past the bound the rest is cut and counted.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { installProbes } from '../../src/server/http/probes.ts';
import { DRAIN_IDLE_GRACE_MS, Drain, shutdown, shutdownSummary } from '../../src/server/shutdown.ts';

type Answer = { status: number; headers: http.IncomingHttpHeaders; body: string } | { error: string };

function get(agent: http.Agent, port: number, path: string): Promise<Answer> {
  return new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path, agent }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      res.on('error', (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message }));
    });
    req.on('error', (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message }));
  });
}

let app: FastifyInstance | undefined;
let agent: http.Agent | undefined;
afterEach(async () => {
  agent?.destroy();
  await app?.close();
});

/** An origin with the probes and a /slow route that answers when `release` is called. */
async function origin(): Promise<{ drain: Drain; port: number; release: () => void }> {
  const drain = new Drain();
  app = Fastify();
  installProbes(app, [{ name: 'database', check: async () => undefined }], drain);
  let release: () => void = () => undefined;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  app.get('/slow', async () => {
    await released;
    return { done: true };
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  drain.watch(app.server);
  agent = new http.Agent({ keepAlive: true, maxSockets: 2 });
  return { drain, port: (app.server.address() as AddressInfo).port, release };
}

describe('the shutdown drain (D-264)', () => {
  it('fails readiness at once, refuses new connections, finishes the request in flight and closes its connection', async () => {
    const { drain, port, release } = await origin();
    const slow = get(agent!, port, '/slow');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await get(agent!, port, '/readyz')).toMatchObject({ status: 200 });
    expect(drain.inFlight).toBe(1);
    expect(drain.connections).toBe(2);

    drain.begin();
    expect(drain.draining).toBe(true);
    // The idle kept-alive connection is still there and answers 503 at once, closing itself.
    const probe = await get(agent!, port, '/readyz');
    expect(probe).toMatchObject({ status: 503, headers: { connection: 'close' } });
    expect(JSON.parse((probe as { body: string }).body)).toEqual({
      error: 'not ready: the instance is shutting down',
      code: 'NOT_READY',
    });
    // No new connection is accepted.
    expect(await get(new http.Agent(), port, '/livez')).toEqual({ error: 'ECONNREFUSED' });

    const settled = drain.settle(performance.now() + 5000);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(drain.inFlight).toBe(1);
    release();
    expect(await slow).toMatchObject({ status: 200, headers: { connection: 'close' }, body: '{"done":true}' });
    expect(await settled).toBe(true);
    expect(drain.connections).toBe(0);
  });

  it('closes an idle kept-alive connection once nothing is in flight and the grace has passed', async () => {
    const { drain, port } = await origin();
    expect(await get(agent!, port, '/livez')).toMatchObject({ status: 200 });
    expect(drain.connections).toBe(1);
    const started = performance.now();
    drain.begin();
    expect(await drain.settle(performance.now() + 5000)).toBe(true);
    const took = performance.now() - started;
    expect(took).toBeGreaterThanOrEqual(DRAIN_IDLE_GRACE_MS);
    expect(took).toBeLessThan(DRAIN_IDLE_GRACE_MS + 1000);
    expect(drain.connections).toBe(0);
  });

  it('past the bound, closes what is still open and the summary says so', async () => {
    const { drain, port, release } = await origin();
    const slow = get(agent!, port, '/slow');
    await new Promise((resolve) => setTimeout(resolve, 50));
    let closed = false;
    const report = await shutdown(
      {
        drain,
        wsSockets: { sockets: () => [] },
        webhooks: { dispatcher: { stop: async () => 2 } },
        ledger: { engine: { idle: async () => undefined } },
        close: async () => {
          closed = true;
        },
      },
      300,
    );
    release();
    expect(await slow).toEqual({ error: 'ECONNRESET' });
    expect(closed).toBe(true);
    expect(report).toMatchObject({ cutRequests: 1, cutConnections: 1, cutAttempts: 2, engineIdle: true });
    expect(report.ms).toBeGreaterThanOrEqual(300);
    expect(shutdownSummary(report, 300)).toMatch(
      /^stopped in \d+ ms; not everything finished within the drain bound of 300 ms: 1 request\(s\) in flight and 1 connection\(s\) closed unfinished; 2 webhook attempt\(s\) released for another instance$/,
    );
  });
});
