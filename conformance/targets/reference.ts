/**
 * The in-process reference stack as a target (DESIGN.md: "The default target is an in-process reference
 * stack"): a fresh data directory, ephemeral ports, instant mining, real TLS, real Anvil and PGlite — or
 * PostgreSQL when DATABASE_URL is set, in a fresh database of that server dropped on close (every target is a
 * first start, so it gets the one-time admin token).
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import {
  hexToBytes,
  isAddressEqual,
  keccak256,
  recoverTransactionAddress,
  type Hex,
  type TransactionSerialized,
} from 'viem';
import { loadConfig } from '../../src/config.ts';
import { repoPath } from '../../src/paths.ts';
import { OffsetClock } from '@svckit/sdk/clock';
import { memoEnvelope } from '@svckit/sdk/crypto';
import type { TransferRow } from '../../src/ledger/transfers/engine.ts';
import type { Stack } from '../../src/server/app.ts';
import { listen, type ReadyEvent } from '../../src/server/main.ts';
import { buildEvidenceAtStart, type EvidenceBuildHandle } from '../evidence/at-start.ts';
import { receiverTls } from '../webhooks/receiver-tls.ts';
import type { Upstream } from '../../src/node/upstream.ts';
import type { ReferenceControl, SendFault, Target } from './target.ts';

/** Options of {@link referenceTarget}. */
export type ReferenceOptions = {
  /** Settings over the defaults (ports 0, SVC_BLOCK_TIME 0). */
  env?: Record<string, string>;
  /**
   * Keep the database and Anvil's state in the data directory, as `svckit serve` does. It makes `restart()` and
   * `crashAtNextBroadcast()` available (the checks of D-078 need them); startup is slower.
   */
  persist?: boolean;
  /**
   * Tests only: changes each started stack (also after `restart()`) before any check reaches it, to give the
   * reference a fault on purpose and show that the check naming the rule catches it.
   */
  injectFault?(stack: Stack): void;
  /** pino level of the stack's request logs, to stderr (default `silent`: the run's progress owns stderr). */
  logLevel?: string;
};

/** Starts the stack and returns it as a target; call `close()` when done. */
export async function referenceTarget(options: ReferenceOptions = {}): Promise<Target> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'svckit-ref-'));
  const postgres = await freshDatabase(options.env?.DATABASE_URL ?? process.env.DATABASE_URL);
  // D-102: the stack trusts the harness's webhook receiver CA, as an institution's deployment would be told to.
  const receiverCa = (await receiverTls()).caCertPath;
  // The in-process reference serves the extension it builds from this checkout (0.1 s), into its own data
  // directory, unless the caller names a built one; a deployment's unbuilt extension stays a real failure.
  // The installed package has no extension sources: it serves the one built when it was packed (D-230).
  const extensionDir = options.env?.SVC_WALLET_EXTENSION_DIR ?? (await referenceExtension(dataDir));
  const config = loadConfig({
    SVC_WALLET_EXTENSION_DIR: extensionDir,
    SVC_DATA_DIR: dataDir,
    SVC_BASE_PORT: '0',
    SVC_WALLET_PORT: '0',
    SVC_SITE_PORT: '0',
    SVC_BLOCK_TIME: '0',
    SVC_WEBHOOK_CA_FILE: receiverCa,
    // The harness drives the stack far harder than one client would: the D-024/D-058 limits of /rpc, /api and
    // /admin are lifted here (test/ratelimits covers them); the institutional limit stays at the spec's 10/s.
    SVC_RATE_LIMIT_RPC: '0',
    SVC_RATE_LIMIT_EXPLORER: '0',
    SVC_RATE_LIMIT_ADMIN: '0',
    // D-200's in-flight bounds of eth_call and eth_estimateGas, likewise (test/chain/simulated-calls covers them).
    SVC_RPC_SIMULATE_PER_IP: '64',
    SVC_RPC_SIMULATE_TOTAL: '64',
    // D-143: the harness's receiver listens on loopback, which a deployment refuses.
    SVC_WEBHOOK_ALLOW_PRIVATE: 'true',
    ...options.env,
    ...(postgres ? { DATABASE_URL: postgres.url } : {}),
  });
  const clock = new OffsetClock();
  const persist = options.persist ?? false;
  const start = async () => {
    const started = await listen(config, { clock, logLevel: options.logLevel ?? 'silent', persist });
    options.injectFault?.(started.stack);
    return started;
  };
  let { stack, ready } = await start();
  /** False after a crash, until restart(). */
  let running = true;
  /** The background evidence build, once a check asked for the document (D-164). */
  let evidenceBuild: EvidenceBuildHandle | undefined;
  const target: Target = {
    kind: 'reference',
    caCert: stack.tls.caCert,
    capabilities: new Set(['specs', 'base', 'rpc', 'wallet', 'site', 'admin', 'reference']),
    ...(ready.adminToken ? { adminToken: ready.adminToken } : {}),
    close: async () => {
      evidenceBuild?.stop();
      if (running) await stack.close();
      running = false;
      await postgres?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  const point = (event: ReadyEvent) => {
    target.base = new URL(`${event.base}/`);
    target.wallet = new URL(`${event.wallet}/`);
    target.site = new URL(`${event.site}/`);
  };
  point(ready);
  /** Runs `hook` once, in the next transfer's window between its stored record and its broadcast. */
  const atNextBroadcast = (hook: (row: TransferRow) => Promise<void>) => {
    const engine = stack.ledger.engine;
    engine.beforeBroadcast = async (row) => {
      engine.beforeBroadcast = undefined;
      await hook(row);
    };
  };
  const control: ReferenceControl = {
    advanceClock: (ms) => {
      clock.advance(ms);
      // The dispatcher polls in real time; moved time must make due deliveries go at once.
      stack.webhooks.wake();
    },
    mineBlock: async () => {
      await stack.chain.producer?.requestBlock();
    },
    now: () => clock.now(),
    // The site serves <data>/evidence (D-153); the in-process stack builds it only when a check first asks (D-164).
    buildEvidence: () => {
      evidenceBuild ??= buildEvidenceAtStart({ evidenceDir: path.join(dataDir, 'evidence'), log: () => undefined });
    },
    openMemo: (txHash) => openMemo(stack, txHash as Hex),
    refuseNextSend: (from) => refuseNextSend(stack.chain.upstream, from),
    holdNextBroadcast: () => {
      const reached = Promise.withResolvers<void>();
      const released = Promise.withResolvers<void>();
      atNextBroadcast(async () => {
        reached.resolve();
        await released.promise;
      });
      const hook = stack.ledger.engine.beforeBroadcast;
      const release = () => {
        // Released before any transfer reached it (the request was refused): the hold must not catch a later one.
        if (stack.ledger.engine.beforeBroadcast === hook) stack.ledger.engine.beforeBroadcast = undefined;
        released.resolve();
      };
      return { reached: reached.promise, release };
    },
  };
  if (persist) {
    control.crashAtNextBroadcast = () =>
      new Promise<void>((resolve) =>
        atNextBroadcast(async () => {
          // The process dies here: the open request is cut, nothing after this line of the engine ever runs.
          running = false;
          await stack.close();
          resolve();
          await new Promise(() => undefined);
        }),
      );
    control.restart = async () => {
      if (running) await stack.close();
      ({ stack, ready } = await start());
      running = true;
      point(ready);
    };
  }
  target.reference = control;
  return target;
}

/**
 * The node behind `upstream` refuses the next eth_sendRawTransaction from `from` once, as a node that rejects a
 * transaction does (EIP-1474 code -32003), and every such send is counted by transaction hash. It is the failed
 * broadcast of the spec's "If the broadcast fails the record is marked failed and is not retried": a server that
 * sends the transaction again, at once or later, is counted sending it twice.
 */
function refuseNextSend(upstream: Upstream, from: Hex): SendFault {
  const attempts = new Map<Hex, number>();
  let refused = false;
  const hook: Upstream['beforeSend'] = async ({ method, params }) => {
    if (method !== 'eth_sendRawTransaction' || typeof params[0] !== 'string') return undefined;
    const raw = params[0] as TransactionSerialized;
    const sender = await recoverTransactionAddress({ serializedTransaction: raw }).catch(() => undefined);
    if (!sender || !isAddressEqual(sender, from)) return undefined;
    const hash = keccak256(raw);
    attempts.set(hash, (attempts.get(hash) ?? 0) + 1);
    if (refused) return undefined;
    refused = true;
    return { code: -32003, message: 'transaction rejected (one-shot fault of the in-process reference target)' };
  };
  upstream.beforeSend = hook;
  return {
    attempts: (txHash) => attempts.get(txHash.toLowerCase() as Hex) ?? 0,
    end: () => {
      if (upstream.beforeSend === hook) upstream.beforeSend = undefined;
    },
  };
}

/** Decrypts the D-032 envelope in a transaction's data with the recipient account's ML-KEM-768 secret key. */
async function openMemo(stack: Stack, txHash: Hex): Promise<string> {
  const tx = await stack.chain.upstream.call<{ to: Hex | null; input: Hex } | null>('eth_getTransactionByHash', [
    txHash,
  ]);
  if (!tx?.to) throw new Error(`the node knows no transaction ${txHash} to an address`);
  const recipient = await stack.ledger.accounts.findByAddress(tx.to);
  if (!recipient) throw new Error(`transaction ${txHash} goes to ${tx.to}, which is not a platform account`);
  const plaintext = memoEnvelope.open(stack.ledger.accounts.memoSecretKey(recipient), hexToBytes(tx.input), tx.to);
  return new TextDecoder('utf-8', { fatal: true }).decode(plaintext);
}

/** A new database on the PostgreSQL server of `serverUrl`, and how to drop it; undefined without a URL. */
export async function freshDatabase(
  serverUrl: string | undefined,
): Promise<{ url: string; drop(): Promise<void> } | undefined> {
  if (!serverUrl) return undefined;
  const name = `svckit_ref_${randomBytes(6).toString('hex')}`;
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: serverUrl });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE DATABASE "${name}"`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const drop = async () => {
    // The stack's pool may still be closing its sockets: wait for them rather than cut them (FORCE would make
    // their clients emit errors), and force only as a last resort.
    for (let attempt = 0; attempt < 50; attempt++) {
      try {
        return await admin(`DROP DATABASE IF EXISTS "${name}"`);
      } catch (error) {
        if ((error as { code?: string }).code !== '55006') throw error; // object_in_use
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    await admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  };
  return { url: url.href, drop };
}

/** The extension the reference serves: built from the checkout's sources, or the package's prebuilt one. */
async function referenceExtension(dataDir: string): Promise<string> {
  const builder = repoPath('scripts/build-extension.ts');
  if (!existsSync(builder)) return repoPath('dist/extension');
  // A computed specifier: the package's bundle does not carry the build script or esbuild.
  const { buildExtension } = (await import(pathToFileURL(builder).href)) as {
    buildExtension(outDir: string): Promise<{ outDir: string }>;
  };
  return (await buildExtension(path.join(dataDir, 'extension'))).outDir;
}
