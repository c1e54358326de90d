/**
 * The wallet session API plugin, `{wallet_api_url}` (surface E): every operation of
 * specs/wallet.openapi.yaml. D-024: 20 requests per second per IP, 5 on /auth/challenge and
 * /auth/verify ("because each verify costs two signature checks") and on the managed sign-in (D-127). spec rule 1: a body carrying private
 * material is refused before any handler runs.
 */
import type { KeyObject } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { RouteHandlers } from '../../../generated/wallet/fastify.gen';
import { routes } from '../../../generated/wallet/routes.gen';
import type { Clock } from '@svckit/sdk/clock';
import type { Database } from '../../storage/database.ts';
import { requireAdmin } from '../admin/auth.ts';
import { registerOperations } from '../http/operations.ts';
import { limitRequests } from '../http/rate-limit.ts';
import type { RpcDispatcher } from '../chain/service.ts';
import { AuthService } from './auth-service.ts';
import { BankingService } from './banking.ts';
import { BindingService } from './bindings.ts';
import type { ExtensionPackager } from './download.ts';
import { HistoryService } from './history.ts';
import { createMailer, type Mailer } from '../mail/mailer.ts';
import { ManagedService } from './managed.ts';
import { refusePrivateMaterial } from './private-material.ts';
import type { WalletSettings } from '../../config.ts';
import { SyncService } from './sync.ts';
import { SessionTokens } from './tokens.ts';
import type { ServiceKey } from './keys.ts';

/** What the plugin needs from the stack. */
export type WalletOptions = {
  db: Database;
  dispatcher: RpcDispatcher;
  clock: Clock;
  settings: WalletSettings;
  /** The token-signing key(s): the first signs, all verify (D-018). */
  tokenKeys: ServiceKey[];
  /** The key of the managed tier's stand-in salts (D-216): shared by every instance, untouched by a token-key rotation. */
  standInKey: KeyObject;
  packager: ExtensionPackager;
  /** {wallet_api_url} and {site_url}, read per request (listening ports are known only after listen). */
  walletOrigin(): string;
  siteOrigin(): string;
  /** Collectors added when the settings name none for that chain (the native chain's default, D-088). */
  defaultCollectors?: { chainId: string; address: string }[];
};

// D-127: the managed sign-in (salt and password proof) shares the 5/s window of /auth/*.
const AUTH_OPERATIONS = new Set([
  'walletCreateChallenge',
  'walletVerify',
  'walletGetManagedSalt',
  'walletCreateManagedSession',
  'walletRequestManagedEmailCode',
]);

/** The handlers of every operation, typed by the generated RouteHandlers. */
export function walletHandlers(options: WalletOptions, tokens: SessionTokens, mailer: Mailer): RouteHandlers {
  const { db, clock, settings } = options;
  const auth = new AuthService(db, clock, tokens, options.walletOrigin, settings.identitiesPerIpPerHour);
  const history = new HistoryService(options.dispatcher, settings.historySources, settings.historyTimeoutMs);
  const sync = new SyncService(db, clock, settings.syncBudgets);
  const bindings = new BindingService(db, clock);
  const banking = new BankingService(db, clock);
  const { codesPerEmail: perEmail, codesPerIp: perIp } = settings.managed;
  // D-212, D-216: the stand-in salts and the email codes' key come from the stand-in key all instances share.
  const managed = new ManagedService(db, clock, tokens, options.standInKey, {
    mailer,
    limits: { perEmail, perIp },
  });
  const collectors = [...settings.feeCollectors];
  for (const c of options.defaultCollectors ?? [])
    if (!collectors.some((x) => x.chainId === c.chainId)) collectors.push(c);
  const feesUpdatedAt = new Date(clock.now()).toISOString();
  const session = (request: Parameters<SessionTokens['authenticate']>[0]) =>
    tokens.authenticate(request).then((c) => c.sub);
  // D-209: the sync devices, the managed account and changes to owner bindings need the owner's token; a dapp one is 403.
  const owner = (request: Parameters<SessionTokens['authenticate']>[0]) =>
    tokens.authenticateOwner(request).then((c) => c.sub);
  return {
    walletCreateChallenge: async (request, reply) =>
      reply.code(200).send(await auth.challenge(request.body, request.ip)),
    walletVerify: async (request, reply) => reply.code(200).send(await auth.verify(request.body)),
    walletRegisterWallet: async (request, reply) => reply.code(200).send(await auth.register(request.body, request.ip)),
    walletGetHistory: async (request, reply) => {
      // D-066: any address may be queried with a valid token; none is 401.
      await session(request);
      return reply.code(200).send(await history.feed(request.query));
    },
    // spec rule 9: "The client must read the platform fee configuration and honour the fee (basis points) shown before signing."
    walletGetFeeConfig: async (_request, reply) =>
      reply.code(200).send({ feeBps: settings.feeBps, collectors, updatedAt: feesUpdatedAt }),
    walletDownloadExtension: async (_request, reply) => {
      const pkg = options.packager.current();
      return reply.redirect(`${options.siteOrigin()}/downloads/${pkg.fileName}`, 302);
    },
    walletGetJwks: async (_request, reply) => reply.code(200).send(tokens.jwks()),
    walletGetAuthorizationRecord: async (request, reply) => reply.code(200).send(await auth.record(request.params)),
    walletListSyncDevices: async (request, reply) => reply.code(200).send(await sync.list(await owner(request))),
    walletPutSyncDevice: async (request, reply) =>
      reply.code(200).send(await sync.put(await owner(request), request.params, request.body, request.ip)),
    walletDeleteSyncDevice: async (request, reply) => {
      await sync.remove(await owner(request), request.params);
      return reply.code(204).send();
    },
    walletListSyncEnvelopes: async (request, reply) =>
      reply.code(200).send(await sync.fetch(await owner(request), request.query)),
    walletPostSyncEnvelopes: async (request, reply) =>
      reply.code(200).send(await sync.post(await owner(request), request.body, request.ip)),
    walletPutOwner: async (request, reply) => {
      // D-083: the operating institution (the administrator token, D-048) records KYC-verified owners.
      await requireAdmin(request, db);
      return reply.code(200).send(await bindings.putOwner(request.params, request.body));
    },
    walletListBindings: async (request, reply) => reply.code(200).send(await bindings.list(await session(request))),
    walletCreateBinding: async (request, reply) =>
      reply.code(201).send(await bindings.offer(await owner(request), request.body)),
    walletGetBinding: async (request, reply) =>
      reply.code(200).send(await bindings.get(await session(request), request.params)),
    walletAcceptBinding: async (request, reply) =>
      reply.code(200).send(await bindings.accept(await owner(request), request.params)),
    walletPutBindingLimits: async (request, reply) =>
      reply.code(200).send(await bindings.changeLimits(await owner(request), request.params, request.body)),
    walletRevokeBinding: async (request, reply) =>
      reply.code(200).send(await bindings.revoke(await owner(request), request.params)),
    walletGetBindingActivity: async (request, reply) =>
      reply.code(200).send(await bindings.activity(await session(request), request.params)),
    walletAuthorizeBanking: async (request, reply) =>
      reply.code(201).send(await banking.authorize(await session(request), request.body)),
    walletGetManagedSalt: async (request, reply) => reply.code(200).send(await managed.salt(request.query)),
    walletRequestManagedEmailCode: async (request, reply) =>
      reply.code(202).send(await managed.requestCode(await session(request), request.body, request.ip)),
    walletCreateManagedAccount: async (request, reply) =>
      reply.code(201).send(await managed.create(await owner(request), request.body)),
    walletCreateManagedSession: async (request, reply) => reply.code(200).send(await managed.signIn(request.body)),
    walletGetManagedShare: async (request, reply) =>
      reply.code(200).send(await managed.share(await tokens.authenticateManaged(request))),
    walletDeleteManagedAccount: async (request, reply) => {
      await managed.remove(await tokens.authenticateManaged(request));
      return reply.code(204).send();
    },
  };
}

/** Registers the surface on the wallet origin (no prefix: the paths carry no version segment, D-028). */
export async function walletRoutes(app: FastifyInstance, options: WalletOptions): Promise<void> {
  const tokens = new SessionTokens(options.tokenKeys, options.clock, options.walletOrigin);
  // D-213: codes go out by SMTP, or (no SVC_SMTP_URL, development) to this log, which says so now.
  const mailer = createMailer({
    smtpUrl: options.settings.managed.smtpUrl,
    from: options.settings.managed.mailFrom,
    log: { warn: (m) => app.log.warn(m), error: (m) => app.log.error(m) },
  });
  app.addHook('onClose', () => mailer.close());
  const handlers = walletHandlers(options, tokens, mailer);
  app.addHook('preValidation', async (request) => refusePrivateMaterial(request.body));
  // Two sibling scopes, each with its own per-IP window: /auth/* at 5/s, everything else at 20/s (D-024).
  await app.register(async (scope) => {
    await limitRequests(scope, options.settings.authRequestsPerSecond);
    registerOperations(
      scope,
      routes.filter((r) => AUTH_OPERATIONS.has(r.operationId)),
      handlers,
    );
  });
  await app.register(async (scope) => {
    await limitRequests(scope, options.settings.requestsPerSecond);
    registerOperations(
      scope,
      routes.filter((r) => !AUTH_OPERATIONS.has(r.operationId)),
      handlers,
    );
  });
}
