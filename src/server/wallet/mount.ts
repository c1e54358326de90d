/**
 * Mounts surface E on the stack: the wallet session API on the wallet origin ({wallet_api_url}) and the
 * signed extension package on the site origin ({site_url}), with the service's keys and the wallet settings.
 * The keys live sealed in the database, the same for every instance (D-214); each instance reads them again
 * every {@link KEY_REFRESH_MS} to take up a rotation (D-215).
 */
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { getAddress } from 'viem';
import type { Config } from '../../config.ts';
import type { Clock } from '@svckit/sdk/clock';
import type { ChainRuntime } from '../../node/runtime.ts';
import type { Keyring } from '../../ledger/keyring.ts';
import type { Database } from '../../storage/database.ts';
import { managedStandInSeed } from '../../storage/settings.ts';
import type { RpcDispatcher } from '../chain/service.ts';
import { ExtensionPackager, extensionSiteRoutes } from './download.ts';
import {
  freshSeed,
  KEY_REFRESH_MS,
  readLegacySeed,
  removeLegacySeed,
  ServiceKeyRing,
  serviceKeyFromSeed,
  type ServiceKeyName,
} from './keys.ts';
import { walletRoutes } from './routes.ts';

/** What {@link mountWallet} needs from buildStack. */
export type MountOptions = {
  wallet: FastifyInstance;
  site: FastifyInstance;
  config: Pick<Config, 'host' | 'walletPort' | 'sitePort' | 'dataDir' | 'wallet'>;
  db: Database;
  /** The KEK the service keys are sealed under (D-148, D-214). */
  keyring: Keyring;
  dispatcher: RpcDispatcher;
  chain: Pick<ChainRuntime, 'fundingAccount'>;
  clock: Clock;
  /** The stack persists (serve): seeds an older svckit kept in the data directory move into the database (D-214). */
  persist: boolean;
};

/** The https origin an app listens on (before listening: the configured host and port). */
function originOf(app: FastifyInstance, host: string, port: number): string {
  const address = app.server.address() as AddressInfo | null;
  const shown = host.includes(':') ? `[${host}]` : host;
  return `https://${shown}:${address?.port ?? port}`;
}

/** Registers the wallet session API and the extension downloads. */
export async function mountWallet(options: MountOptions): Promise<void> {
  const settings = options.config.wallet;
  const { db, keyring, clock } = options;
  const dataDir = options.persist ? options.config.dataDir : null;
  const legacy = (name: ServiceKeyName) => readLegacySeed(dataDir, name);
  const legacyToken = legacy('token-signing');
  const open = (name: ServiceKeyName, legacySeed = legacy(name)) =>
    ServiceKeyRing.open({
      db,
      keyring,
      name,
      clock,
      graceMs: settings.keyGraceSeconds * 1000,
      ...(legacySeed ? { legacySeed } : {}),
    });
  const [tokenKeys, releaseKeys] = await Promise.all([open('token-signing', legacyToken), open('release-signing')]);
  // D-216: the stand-in salts of the managed tier have their own shared key, which a token-key rotation leaves
  // alone; on an upgrade it starts as the old token seed, so the salts answered for unknown emails do not change.
  const standIn = await serviceKeyFromSeed(await managedStandInSeed(db, keyring, () => legacyToken ?? freshSeed()));
  // D-214: the database holds the seeds now; the files an older svckit wrote go.
  removeLegacySeed(dataDir, 'token-signing');
  removeLegacySeed(dataDir, 'release-signing');
  watchKeys(options.wallet, [tokenKeys, releaseKeys]);
  const packager = new ExtensionPackager(settings.extensionDir, () => releaseKeys.current);
  const walletOrigin = () =>
    settings.publicUrl ?? originOf(options.wallet, options.config.host, options.config.walletPort);
  const siteOrigin = () =>
    settings.sitePublicUrl ?? originOf(options.site, options.config.host, options.config.sitePort);
  const collector = options.chain.fundingAccount?.address;
  await options.wallet.register(walletRoutes, {
    db,
    dispatcher: options.dispatcher,
    clock,
    settings,
    tokenKeys: tokenKeys.verifying,
    standInKey: standIn.privateKey,
    packager,
    walletOrigin,
    siteOrigin,
    // D-088, D-151: by default the native chain's fee goes to the operator's funding account, whose key only the server holds.
    defaultCollectors: collector ? [{ chainId: '1111111', address: getAddress(collector) }] : [],
  });
  await options.site.register(extensionSiteRoutes, { packager });
}

/** D-215: reads the key sets again every {@link KEY_REFRESH_MS} until `app` closes; a failed read keeps the keys it has. */
function watchKeys(app: FastifyInstance, rings: ServiceKeyRing[]): void {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    Promise.all(rings.map((ring) => ring.refresh()))
      .catch((error: unknown) =>
        app.log.warn({ err: error }, 'svckit wallet: reading the service keys failed; the next refresh tries again'),
      )
      .finally(() => {
        running = false;
      });
  }, KEY_REFRESH_MS);
  timer.unref();
  app.addHook('onClose', async () => clearInterval(timer));
}
