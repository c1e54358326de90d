// Several `svckit serve` processes on one PostgreSQL, one Redis and one chain node (D-183): what an
// institution runs behind a load balancer. Each instance is a real child process (`bin/svckit.js serve`) with
// its own data directory, TLS certificate and ports, and the same DATABASE_URL, CHAIN_RPC_URL (a --no-mining
// Anvil whose blocks the instance holding the leader lease seals), REDIS_URL and SVC_KEK (account keys are
// sealed under one key-encryption key, so any instance can sign for any account).
//
//   const cluster = await startCluster({ instances: 3 });
//   cluster.instances[i].url / .target   // https base URL, and a conformance target (base, wallet and site
//                                        // origins) trusting its CA
//   await cluster.instances[i].kill();   // SIGKILL: no shutdown code runs
//   await cluster.instances[i].terminate(); // SIGTERM: the graceful shutdown (D-264); its exit code and time
//   await cluster.instances[i].restart();// same data directory and ports
//   await cluster.stop();
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Hex } from 'viem';
import { remoteTarget } from '../../conformance/targets/remote.ts';
import type { Target } from '../../conformance/targets/target.ts';
import { freePort } from '../../src/node/anvil.ts';
import { SVCKIT_BIN } from '../../src/paths.ts';
import type { Upstream } from '../../src/node/upstream.ts';
import { startPostgres, startRedis, startSharedAnvil, type Restartable, type Service } from './services.ts';

/** The ready line `svckit serve` prints (src/server/main.ts). */
type Ready = { event: 'ready'; base: string; wallet: string; site: string; caCert: string; adminToken?: string };

/** One `svckit serve` process of the cluster. */
export type Instance = {
  index: number;
  /** The https base URL ({base_url}); the same across restarts. */
  url: string;
  /** A conformance target for this instance (its CA trusted, the administrator token set). */
  target: Target;
  /** Everything the process wrote on stderr so far (warnings). */
  stderr(): string;
  /** True while the process runs. */
  alive(): boolean;
  /** SIGKILL, and resolves once it has exited. */
  kill(): Promise<void>;
  /** SIGTERM (the graceful shutdown, D-264); resolves once it has exited, with how and after how long. */
  terminate(): Promise<{ code: number | null; signal: NodeJS.Signals | null; ms: number }>;
  /** Starts it again on the same data directory and ports; resolves at its ready line. */
  restart(): Promise<void>;
};

/** A running cluster. */
export type Cluster = {
  instances: Instance[];
  /** The shared chain node, for checks against the chain itself. */
  chain: Upstream;
  chainUrl: string;
  databaseUrl: string;
  /** The Redis every instance shares its rate limits, replay digests and revocations through (D-168). */
  redisUrl: string;
  /** The administrator token every instance shares (one database, D-048). */
  adminToken: string;
  /** The instance that holds the leader lease now (asks the database), or undefined. */
  leader(): Promise<Instance | undefined>;
  /** The shared services, each of which can be stopped and started again (readiness tests). */
  services: { postgres: Restartable; redis: Restartable; chain: Restartable };
  stop(): Promise<void>;
};

/** Options of {@link startCluster}. */
export type ClusterOptions = {
  instances?: number;
  /** Settings for every instance on top of the cluster's own (rate limits, block time, lease length). */
  env?: Record<string, string>;
  /** Settings of one instance on top of those (e.g. its own CHAIN_RPC_URL, given the shared node's URL). */
  envOf?: (index: number, chainUrl: string) => Record<string, string>;
};

/** How long one instance may take to print its ready line. */
const READY_TIMEOUT_MS = 180_000;

/**
 * Starts PostgreSQL, Redis, one Anvil and `instances` (default 3) `svckit serve` processes. Redis is required:
 * without it each instance would keep its limits and revocations to itself, which is no cluster (D-168).
 */
export async function startCluster(options: ClusterOptions = {}): Promise<Cluster> {
  const services: Service[] = [];
  const children = new Set<ChildProcess>();
  const dirs: string[] = [];
  try {
    const [postgres, anvil] = await Promise.all([startPostgres(), startSharedAnvil()]);
    services.push(postgres, anvil);
    const redis = await startRedis().catch((error: Error) => {
      throw new Error(`redis-server could not be started (apt-get install redis-server): ${error.message}`);
    });
    services.push(redis);
    const shared: Record<string, string> = {
      DATABASE_URL: postgres.url,
      CHAIN_RPC_URL: anvil.url,
      SVC_SHARED_CHAIN: 'true',
      SVC_KEK: randomBytes(32).toString('base64url'),
      SVC_BLOCK_TIME: '1',
      SVC_LEADER_LEASE_MS: '3000',
      SVC_LOG_LEVEL: 'warn',
      SVC_EVIDENCE_AT_START: 'false',
      REDIS_URL: redis.url,
      ...options.env,
    };
    const count = options.instances ?? 3;
    const instances: Instance[] = [];
    let adminToken = '';
    for (let index = 0; index < count; index++) {
      const dataDir = mkdtempSync(path.join(tmpdir(), `svckit-cluster-${index}-`));
      dirs.push(dataDir);
      // A free port may be taken by another program before the instance binds it: try again with others.
      let instance: Awaited<ReturnType<typeof spawnInstance>> | undefined;
      for (let attempt = 1; !instance; attempt++) {
        const env: Record<string, string> = {
          ...(process.env as Record<string, string>),
          ...shared,
          SVC_DATA_DIR: dataDir,
          SVC_BASE_PORT: String(await freePort()),
          SVC_WALLET_PORT: String(await freePort()),
          SVC_SITE_PORT: String(await freePort()),
          ...options.envOf?.(index, anvil.url),
        };
        instance = await spawnInstance(index, env, children).catch((error: Error) => {
          if (attempt < 3 && error.message.includes('EADDRINUSE')) return undefined;
          throw error;
        });
      }
      adminToken ||= instance.ready.adminToken ?? '';
      instances.push(instance.handle(adminToken));
    }
    const cluster: Cluster = {
      instances,
      chain: anvil.upstream,
      chainUrl: anvil.url,
      databaseUrl: postgres.url,
      redisUrl: redis.url,
      adminToken,
      services: { postgres, redis, chain: anvil },
      leader: async () => {
        const pg = (await import('pg')).default;
        const client = new pg.Client({ connectionString: postgres.url });
        await client.connect();
        try {
          const { rows } = await client.query<{ holder: string }>(
            "select holder from leases where name = 'block-producer' and expires_at > now()",
          );
          const holder = rows[0]?.holder;
          return holder ? instances.find((i) => i.alive() && holderOf(i) === holder) : undefined;
        } finally {
          await client.end();
        }
      },
      stop: async () => {
        await stopAll(children, services, dirs);
      },
    };
    return cluster;
  } catch (error) {
    await stopAll(children, services, dirs);
    throw error;
  }
}

/** The leader lease holder id an instance announced on stderr (see {@link spawnInstance}). */
const holders = new WeakMap<Instance, () => string | undefined>();
const holderOf = (instance: Instance) => holders.get(instance)?.();

async function stopAll(children: Set<ChildProcess>, services: Service[], dirs: string[]): Promise<void> {
  await Promise.all(
    [...children].map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          child.once('exit', () => resolve());
          child.kill('SIGTERM');
          // An instance that does not stop within 15 s is killed.
          setTimeout(() => child.kill('SIGKILL'), 15_000).unref();
        }),
    ),
  );
  for (const service of services.reverse()) await service.stop().catch(() => undefined);
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
}

/** Starts one `svckit serve` and returns its ready line and a handle factory. */
async function spawnInstance(index: number, env: Record<string, string>, children: Set<ChildProcess>) {
  let child: ChildProcess;
  /** Set from the moment kill() is called, so that no new request picks an instance that is going. */
  let killed = false;
  let stderr = '';
  let holder: string | undefined;
  let ready: Ready;

  const launch = async (): Promise<Ready> => {
    child = spawn(process.execPath, [SVCKIT_BIN, 'serve'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    killed = false;
    children.add(child);
    child.once('exit', () => children.delete(child));
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
      // D-183: the instance names its lease holder id when it takes the lease.
      for (const match of chunk.matchAll(/leader lease taken \(holder ([0-9a-f-]{36})\)/g)) holder = match[1];
    });
    let stdout = '';
    return new Promise<Ready>((resolve, reject) => {
      const timer = setTimeout(
        () =>
          reject(new Error(`instance ${index}: no ready line within ${READY_TIMEOUT_MS} ms; ${stderr.slice(-2000)}`)),
        READY_TIMEOUT_MS,
      );
      const onData = (chunk: string) => {
        stdout += chunk;
        for (const line of stdout.split('\n').slice(0, -1)) {
          try {
            const event = JSON.parse(line) as Ready;
            if (event.event !== 'ready') continue;
            clearTimeout(timer);
            child.stdout!.off('data', onData);
            child.stdout!.resume();
            return resolve(event);
          } catch {
            // not a JSON line
          }
        }
      };
      child.stdout!.setEncoding('utf8').on('data', onData);
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`instance ${index} exited (${code ?? signal}) before its ready line; ${stderr.slice(-2000)}`));
      });
    });
  };

  ready = await launch();
  return {
    ready,
    handle(adminToken: string): Instance {
      const instance: Instance = {
        index,
        url: ready.base,
        target: remoteTarget({
          base: ready.base,
          wallet: ready.wallet,
          site: ready.site,
          caCert: readFileSync(ready.caCert, 'utf8'),
          adminToken,
        }),
        stderr: () => stderr,
        alive: () => !killed && child.exitCode === null && child.signalCode === null,
        kill: async () => {
          if (!instance.alive()) return;
          killed = true;
          const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
          child.kill('SIGKILL');
          await gone;
          holder = undefined;
        },
        terminate: async () => {
          killed = true;
          const sent = performance.now();
          const gone = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
            child.once('exit', (code, signal) => resolve({ code, signal })),
          );
          child.kill('SIGTERM');
          const { code, signal } = await gone;
          holder = undefined;
          return { code, signal, ms: performance.now() - sent };
        },
        restart: async () => {
          await instance.kill();
          ready = await launch();
        },
      };
      holders.set(instance, () => holder);
      return instance;
    },
  };
}

/** The nonce the chain has for `address` (its transaction count at the newest block). */
export async function chainNonce(chain: Upstream, address: Hex): Promise<number> {
  return Number(BigInt(await chain.call<Hex>('eth_getTransactionCount', [address, 'latest'])));
}
