/**
 * Builds the reference stack without listening (house rule 1: app.ts builds, main.ts listens): the
 * database, the chain, and the three HTTPS origins — base (`/rpc`, `/ws`, `/api`, `/wallet/api/v1`,
 * `/admin/v1`), wallet (the wallet session API) and site (`/.well-known/pqc-evidence.json`).
 */
import Fastify, { LogController, type FastifyInstance, type FastifyReply } from 'fastify';
import type { Config } from '../config.ts';
import { startChain, type ChainRuntime } from '../node/runtime.ts';
import { Upstream } from '../node/upstream.ts';
import { systemClock, type Clock } from '@svckit/sdk/clock';
import { openDatabase, type OpenDatabase } from '../storage/database.ts';
import { ensureAdminToken, resealSettings } from '../storage/settings.ts';
import { Keyring } from '../ledger/keyring.ts';
import { startLedger, type LedgerRuntime } from '../ledger/runtime.ts';
import { pemCertificates, startWebhooks, type WebhookRuntime } from '../webhooks/runtime.ts';
import { readFileSync } from 'node:fs';
import { Authenticator } from './auth/authenticate.ts';
import { institutionalRoutes } from './institutional/routes.ts';
import path from 'node:path';
import { adminRoutes } from './admin/routes.ts';
import { evidenceSiteRoutes } from './evidence/routes.ts';
import { explorerRoutes } from './explorer/routes.ts';
import { docsRoutes } from './docs/routes.ts';
import { consoleRoutes } from './console/routes.ts';
import { installErrorHandling } from './http/error-handler.ts';
import { installBodyDepthGuard } from './http/body-depth.ts';
import { clientErrorHandler } from './http/client-errors.ts';
import { KEEP_ALIVE_TIMEOUT_MS, limitConnections, timeoutOptions } from './http/connections.ts';
import { installSecurityHeaders, withSecurityHeaders } from './http/security-headers.ts';
import { RpcDispatcher } from './chain/service.ts';
import { rpcRoutes } from './chain/routes.ts';
import { type RateCounter, RateWindow, RedisRateWindow } from './http/rate-window.ts';
import { limitRequests, shareRateLimits } from './http/rate-limit.ts';
import { openSharedState, type SharedState } from '../storage/redis.ts';
import { RedisFilterStore } from './chain/filter-store.ts';
import { FILTER_LIMITS } from './chain/filters.ts';
import { LocalReplayMemory, RedisReplayMemory } from './auth/replay.ts';
import { shareCredentialChanges } from './auth/credential-changes.ts';
import { wsRoutes } from './chain/ws/routes.ts';
import { SocketRegistry } from './chain/ws/limits.ts';
import { mountWallet } from './wallet/mount.ts';
import { ensureDevCertificates, type TlsMaterial } from './tls/dev-certificates.ts';
import { httpsOptions } from './tls/tls-options.ts';
import type { Server as HttpsServer } from 'node:https';
import { classicalRpcServer, keepClassicalToRpc } from './tls/classical-rpc.ts';
import { installProbes, type ReadinessCheck } from './http/probes.ts';
import { Drain } from './shutdown.ts';
import { sql } from 'drizzle-orm';
import { startTracing, type Tracing } from './telemetry/tracing.ts';
import { installRequestTelemetry, REQUEST_ID_HEADER, REQUEST_ID_LOG_LABEL, requestIdOf } from './telemetry/requests.ts';
import { attachTracing } from './telemetry/attach.ts';
import { StackMetrics, type OriginName } from './metrics/registry.ts';
import { instrumentOrigin } from './metrics/http.ts';
import { rpcObserver } from './metrics/rpc.ts';
import { collector } from './metrics/collect.ts';
import { metricsRoute } from './metrics/route.ts';

/** The svckit version reported by health and client-version strings. */
export const SVCKIT_VERSION = '0.1.0';

/** Options of {@link buildStack} beyond the settings. */
export type StackOptions = {
  clock?: Clock;
  /** pino level for request logs (to stderr); `silent` in tests. */
  logLevel?: string;
  /** Keep the database and Anvil state in the data directory (serve) rather than in memory (tests). */
  persist?: boolean;
};

/** A built (not yet listening) stack. */
export type Stack = {
  base: FastifyInstance;
  wallet: FastifyInstance;
  site: FastifyInstance;
  /** D-259: the classical-TLS listener of /rpc and /ws (SVC_RPC_CLASSICAL_PORT), not yet listening; undefined when off. */
  rpcClassical: HttpsServer | undefined;
  chain: ChainRuntime;
  ledger: LedgerRuntime;
  /** Webhook endpoints, deliveries and the dispatcher (surface B). */
  webhooks: WebhookRuntime;
  database: OpenDatabase;
  dispatcher: RpcDispatcher;
  /** The open /ws connections (D-135, D-137). */
  wsSockets: SocketRegistry;
  tls: TlsMaterial;
  /** The admin token, only on the first start of a data directory. */
  adminToken: string | undefined;
  /** D-264: readiness, requests in flight and connections of every listener, for the graceful shutdown. */
  drain: Drain;
  /** D-265: the stack's traces; undefined when OTEL_EXPORTER_OTLP_ENDPOINT is not set. */
  tracing: Tracing | undefined;
  /** D-276: this stack's Prometheus registry and metrics, served at GET {base_url}/metrics. */
  metrics: StackMetrics;
  close(): Promise<void>;
};

function origin(
  tls: TlsMaterial,
  config: Config,
  logLevel: string,
  name: OriginName,
  shared: SharedState | undefined,
  tracing: Tracing | undefined,
  metrics: StackMetrics,
): FastifyInstance {
  const { connections, hstsMaxAge } = config;
  const app = Fastify({
    // D-204: the TLS handshake, the headers and the body of a request each end within the request time-out.
    https: { ...httpsOptions(tls, config.tlsAllowClassical), ...timeoutOptions(connections) },
    requestTimeout: connections.requestTimeoutMs,
    keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
    logger: { level: logLevel, stream: process.stderr },
    // Fastify's own request logging (two lines, with the URL) stays off; D-270: the origin writes its own completion
    // line (telemetry/requests.ts). D-269: every line of a request carries its id.
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: REQUEST_ID_LOG_LABEL }),
    genReqId: requestIdOf,
    // Closing the stack must not wait for idle keep-alive connections.
    forceCloseConnections: true,
    // Malformed URLs (bad percent-encoding, over-long parameters) are bad input: the surface's error shape, never Fastify's.
    frameworkErrors: (error, request, reply) => {
      void withSecurityHeaders(reply as FastifyReply, hstsMaxAge)
        .header(REQUEST_ID_HEADER, request.id)
        .code(400)
        .send({ error: `malformed request URL: ${error.message}`, code: 'INVALID_PARAMETER' });
    },
    // D-206: a request the HTTP parser refuses, or one past the D-204 time-out, is answered in the same shape.
    clientErrorHandler: clientErrorHandler(connections.requestTimeoutMs, hstsMaxAge),
  });
  // D-205: connections over the origin's cap, or over its per-IP cap, are closed as soon as they are accepted.
  limitConnections(app.server, connections);
  // D-266, D-269, D-270: before every other hook, so an answer any hook sends carries X-Request-Id and is logged.
  installRequestTelemetry(app, tracing, name);
  // D-207: first of the origin's hooks after the request id's, so every answer carries Strict-Transport-Security and nosniff.
  installSecurityHeaders(app, hstsMaxAge);
  installErrorHandling(app);
  // D-278: before any route, so every route template of the origin is known to its HTTP metrics.
  instrumentOrigin(app, metrics, name);
  // D-144: every JSON body of every origin passes the depth guard before it is parsed.
  installBodyDepthGuard(app);
  // D-169: with REDIS_URL, every per-IP limit of the origin counts across instances.
  if (shared) shareRateLimits(app, shared.commands, name);
  return app;
}

/** Builds the stack from validated settings. */
export async function buildStack(config: Config, options: StackOptions = {}): Promise<Stack> {
  const clock = options.clock ?? systemClock;
  const logLevel = options.logLevel ?? 'info';
  const metrics = new StackMetrics();
  const log = (line: string) => {
    if (logLevel !== 'silent') process.stderr.write(`${line}\n`);
  };
  // D-168: shared state first, so an unreachable Redis stops the start before anything else is opened.
  const shared = config.redisUrl ? await openSharedState(config.redisUrl, { log }) : undefined;
  const tracing = await startTracing(config.tracing);
  const database = await openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: options.persist ? config.dataDir : null,
  }).catch(async (error: unknown) => {
    await shared?.close();
    await tracing?.shutdown();
    throw error;
  });
  let chain: ChainRuntime | undefined;
  let ledger: LedgerRuntime | undefined;
  let webhooks: WebhookRuntime | undefined;
  try {
    const adminToken = await ensureAdminToken(database.db);
    const keyring = Keyring.open({
      dataDir: options.persist ? config.dataDir : null,
      ...(config.kek ? { envKek: config.kek } : {}),
    });
    chain = await startChain(config, database.db, keyring, { persistState: options.persist ?? false });
    const upstream = chain.upstream;
    upstream.onFailure = (kind) => metrics.upstreamErrors.inc({ kind });
    const tls = await ensureDevCertificates(config.dataDir, [config.host]);
    // D-102: receivers are checked against the default CA store, the development CA (a receiver on this
    // machine may use the dev server certificate) and SVC_WEBHOOK_CA_FILE.
    const extraCa = [
      tls.caCert,
      ...(config.webhookCaFile ? pemCertificates(readFileSync(config.webhookCaFile, 'utf8')) : []),
    ];
    const hooks = await startWebhooks(database.db, clock, keyring, {
      extraCa,
      concurrency: config.webhookConcurrency,
      allowPrivate: config.webhookAllowPrivate,
      userAgent: `svckit-webhooks/${SVCKIT_VERSION}`,
      // The dispatcher carries on at its next poll (e.g. the database was briefly unreachable); say so unless silenced.
      onError: (error) => {
        if (logLevel !== 'silent') process.stderr.write(`svckit webhooks: ${(error as Error).message}\n`);
      },
      onAttempt: (number, success) => metrics.attempted(number, success),
    });
    webhooks = hooks;
    ledger = await startLedger(database.db, chain, clock, {
      keyring,
      // D-130, D-148: the rotation re-seals the webhook secrets and the sealed settings in its transaction.
      rewrapWithKek: async (tx) => {
        await hooks.secrets.resealAll(tx);
        await resealSettings(tx, keyring);
      },
      payments: {
        platformBic: config.platformBic,
        nativeCcy: config.nativeCcy,
        fx: config.fxRates,
        emitted: () => hooks.wake(),
      },
    });
    attachTracing(tracing, { ...ledger, upstream: chain.upstream, dispatcher: hooks.dispatcher });
    const dispatcher = new RpcDispatcher({
      upstream: chain.upstream,
      consensus: chain.consensus,
      validators: chain.validators,
      observerNodeId: chain.observerNodeId,
      p2pHost: config.host,
      clientName: chain.clientName,
      producer: chain.producer,
      permissions: chain.permissions,
      blockCache: chain.blockCache,
      qbftRelay: chain.mode === 'external' ? qbftRelay(config, chain) : undefined,
      simulation: config.rpcSimulation,
      // D-256: with REDIS_URL every instance answers every filter id (D-168).
      ...(shared ? { filterStore: new RedisFilterStore(shared.commands, FILTER_LIMITS.idleMs) } : {}),
      clock,
    });
    dispatcher.onAnswer = rpcObserver(metrics, (method) => dispatcher.knows(method));
    // D-170: with REDIS_URL, accepted signatures are refused on every instance, and credential changes are
    // announced to every instance.
    const authenticator = new Authenticator(
      ledger.credentials,
      clock,
      shared ? new RedisReplayMemory(shared.commands) : new LocalReplayMemory(),
    );
    if (shared) await shareCredentialChanges(ledger.credentials, shared, log);
    // D-262: readiness is the database, Redis when configured, the chain node and the key material.
    const readiness: ReadinessCheck[] = [
      { name: 'database', check: () => database.db.execute(sql`select 1`) },
      ...(shared ? [{ name: 'redis', check: () => shared.commands.ping() }] : []),
      { name: 'chain', check: () => (chain as ChainRuntime).upstream.call('eth_blockNumber') },
      { name: 'keys', check: async () => keyring.activeId },
    ];
    const base = origin(tls, config, logLevel, 'base', shared, tracing, metrics);
    const drain = new Drain();
    installProbes(base, readiness, drain);
    // D-259: before any route, so the classical listener's requests reach /rpc and /ws only.
    if (config.rpcClassicalPort !== undefined) keepClassicalToRpc(base);
    const rpcLimiter: RateCounter = shared
      ? new RedisRateWindow(config.rpcRateLimit, 1000, shared.commands)
      : new RateWindow(config.rpcRateLimit, 1000, () => clock.now());
    await base.register(rpcRoutes, { dispatcher, limiter: rpcLimiter });
    const credentials = ledger.credentials;
    const wsSockets = new SocketRegistry(
      config.ws,
      (credential) => credentials.findActive(credential),
      (error) => base.log.error({ err: error }, 'svckit /ws: the credential recheck failed; the next one tries again'),
    );
    await base.register(wsRoutes, {
      dispatcher,
      chain,
      authenticator,
      limiter: metrics.countRefusals(rpcLimiter, 'ws'),
      limits: config.ws,
      registry: wsSockets,
    });
    // D-154, D-155: the API reference pages, limited like the other public read-only surface (/api).
    await base.register(docsRoutes, { prefix: '/docs', requestsPerSecond: config.explorerRateLimit });
    // D-271: the administrator console, limited like the reference pages.
    await base.register(consoleRoutes, { prefix: '/console', requestsPerSecond: config.explorerRateLimit });
    await base.register(explorerRoutes, {
      prefix: '/api',
      dispatcher,
      chain,
      clock,
      requestsPerSecond: config.explorerRateLimit,
    });
    await base.register(adminRoutes, {
      prefix: '/admin/v1',
      db: database.db,
      chain,
      ledger,
      webhooks: hooks,
      clock,
      version: SVCKIT_VERSION,
      requestsPerSecond: config.adminRateLimit,
      walletKeyGraceMs: config.wallet.keyGraceSeconds * 1000,
      evidenceDir: path.join(config.dataDir, 'evidence'),
    });
    await base.register(institutionalRoutes, {
      prefix: '/wallet/api/v1',
      db: database.db,
      accounts: ledger.accounts,
      engine: ledger.engine,
      payments: ledger.payments,
      upstream: chain.upstream,
      clock,
      platformBIC: config.platformBic,
      authenticator,
      requestsPerSecond: config.institutionalRateLimit,
    });
    // D-276, D-280: the scrape endpoint, limited like the admin API.
    await base.register(metricsRoute, {
      metrics,
      db: database.db,
      requestsPerSecond: config.adminRateLimit,
      collect: collector(metrics, {
        db: database.db,
        redis: shared?.commands,
        upstream,
        evidenceDir: path.join(config.dataDir, 'evidence'),
        sockets: wsSockets,
        now: () => clock.now(),
      }),
    });
    const wallet = origin(tls, config, logLevel, 'wallet', shared, tracing, metrics);
    const site = origin(tls, config, logLevel, 'site', shared, tracing, metrics);
    installProbes(wallet, readiness, drain);
    installProbes(site, readiness, drain);
    // D-146: the site origin, like every other, is limited per client IP (its 429 is the {error, code} shape).
    await limitRequests(site, config.wallet.siteRequestsPerSecond);
    // spec: "GET {site_url}/.well-known/pqc-evidence.json returns the Evidence document" (built by `svckit evidence build`).
    await site.register(evidenceSiteRoutes, { evidenceDir: path.join(config.dataDir, 'evidence') });
    await mountWallet({
      wallet,
      site,
      config,
      db: database.db,
      keyring,
      dispatcher,
      chain,
      clock,
      persist: options.persist ?? false,
    });
    const running = { chain, ledger };
    const rpcClassical = config.rpcClassicalPort === undefined ? undefined : classicalRpcServer(base, tls, config);
    for (const server of [base.server, wallet.server, site.server, rpcClassical]) if (server) drain.watch(server);
    return {
      base,
      wallet,
      site,
      rpcClassical,
      chain,
      ledger,
      webhooks: hooks,
      database,
      dispatcher,
      wsSockets,
      tls,
      adminToken,
      drain,
      tracing,
      metrics,
      close: async () => {
        await Promise.allSettled([base.close(), wallet.close(), site.close(), closeServer(rpcClassical)]);
        await running.ledger.stop();
        await hooks.stop();
        await dispatcher.stop();
        await running.chain.stop();
        await database.close();
        await shared?.close();
        await tracing?.shutdown();
      },
    };
  } catch (error) {
    await ledger?.stop().catch(() => undefined);
    await webhooks?.stop().catch(() => undefined);
    await chain?.stop().catch(() => undefined);
    await database.close().catch(() => undefined);
    await shared?.close();
    await tracing?.shutdown();
    throw error;
  }
}

/** Stops `server` listening and ends its open connections (as `forceCloseConnections` does for the origins). */
function closeServer(server: HttpsServer | undefined): Promise<void> {
  if (!server?.listening) return Promise.resolve();
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

/** Real QBFT upstream: qbft_* go to the first validator RPC URL (issue: "relayed to the configured validator RPC URLs"), or to the node itself. */
function qbftRelay(config: Config, chain: ChainRuntime) {
  const target = config.validatorRpcUrls[0]
    ? new Upstream(config.validatorRpcUrls[0], { timeoutMs: config.chainTimeoutMs })
    : chain.upstream;
  return (method: string, params: unknown[]) => target.send(method, params);
}
