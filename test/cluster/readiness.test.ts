// Readiness on the cluster (D-262): two `svckit serve` instances on one PostgreSQL, one Redis and one chain node
// (harness.ts). Each shared service is stopped in turn, for real, and started again on the same port with its data:
// while it is down, /readyz on every origin of every instance answers 503 naming that part and no other; once it is
// back, 200 on every origin again, without restarting any instance.
import https from 'node:https';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type Cluster } from './harness.ts';

/** How long the probes may take to see a part go down, and to see it back (a pool or client reconnecting). */
const DOWN_WITHIN_MS = 10_000;
const BACK_WITHIN_MS = 30_000;

let cluster: Cluster;

beforeAll(async () => {
  cluster = await startCluster({ instances: 2 });
});
afterAll(async () => {
  await cluster?.stop();
});

type Probe = { status: number; body: { status?: string; error?: string; code?: string } } | { error: string };

/** GET /readyz on `origin` over a fresh connection trusting `ca`. */
function readyz(origin: string, ca: string): Promise<Probe> {
  return new Promise((resolve) => {
    const req = https.get(new URL('/readyz', origin), { ca, agent: false, timeout: 10_000 }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      res.on('end', () => {
        try {
          resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as Extract<Probe, { body: unknown }>['body'] });
        } catch {
          resolve({ error: `not JSON: ${text.slice(0, 100)}` });
        }
      });
    });
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message }));
  });
}

/** Every origin (base, wallet, site) of every instance, with its CA. */
function origins(): Array<{ name: string; url: string; ca: string }> {
  return cluster.instances.flatMap((instance) =>
    (['base', 'wallet', 'site'] as const).map((name) => ({
      name: `instance ${instance.index} ${name}`,
      url: instance.target[name]!.origin,
      ca: instance.target.caCert!,
    })),
  );
}

/** Probes every origin every 100 ms until each one's answer satisfies `ok`; the ms it took, or throws with the last answers. */
async function untilEvery(ok: (probe: Probe) => boolean, withinMs: number): Promise<number> {
  const started = performance.now();
  let last: Array<[string, Probe]> = [];
  for (;;) {
    last = await Promise.all(origins().map(async (o) => [o.name, await readyz(o.url, o.ca)] as [string, Probe]));
    if (last.every(([, probe]) => ok(probe))) return performance.now() - started;
    if (performance.now() - started > withinMs)
      throw new Error(`not within ${withinMs} ms: ${JSON.stringify(Object.fromEntries(last))}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const ready = (probe: Probe) => 'status' in probe && probe.status === 200 && probe.body.status === 'ok';
const naming = (part: string) => (probe: Probe) =>
  'status' in probe &&
  probe.status === 503 &&
  probe.body.code === 'NOT_READY' &&
  probe.body.error === `not ready: ${part} unavailable`;

describe('readiness of every origin while a shared service is down', () => {
  it('is ready, then for PostgreSQL, Redis and the chain node in turn: 503 naming the part while it is down, 200 once it is back', async () => {
    await untilEvery(ready, BACK_WITHIN_MS);
    const figures: string[] = [];
    for (const [service, part] of [
      ['postgres', 'database'],
      ['redis', 'redis'],
      ['chain', 'chain'],
    ] as const) {
      await cluster.services[service].halt();
      const downMs = await untilEvery(naming(part), DOWN_WITHIN_MS);
      await cluster.services[service].resume();
      const backMs = await untilEvery(ready, BACK_WITHIN_MS);
      figures.push(
        `${service}: 503 "${part}" on all ${origins().length} origins after ${downMs.toFixed(0)} ms, 200 again ${backMs.toFixed(0)} ms after the start`,
      );
    }
    // No instance was restarted, and none ended.
    expect(cluster.instances.every((instance) => instance.alive())).toBe(true);
    console.warn(`readiness: ${figures.join('; ')}`);
  });
});
