/**
 * Mounts surface E on the stack: the wallet session API on the wallet origin ({wallet_api_url}) and the
 * signed extension package on the site origin ({site_url}), with the service's keys and the wallet settings.
 */
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { getAddress } from 'viem';
import type { Config } from '../../config.ts';
import type { Clock } from '../../clock.ts';
import type { ChainRuntime } from '../../node/runtime.ts';
import type { Database } from '../../storage/database.ts';
import type { RpcDispatcher } from '../chain/service.ts';
import { ExtensionPackager, extensionSiteRoutes } from './download.ts';
import { loadServiceKey } from './keys.ts';
import { walletRoutes } from './routes.ts';

/** What {@link mountWallet} needs from buildStack. */
export type MountOptions = {
  wallet: FastifyInstance;
  site: FastifyInstance;
  config: Pick<Config, 'host' | 'walletPort' | 'sitePort' | 'dataDir' | 'wallet'>;
  db: Database;
  dispatcher: RpcDispatcher;
  chain: Pick<ChainRuntime, 'fundingAccount'>;
  clock: Clock;
  /** Keep the service keys in the data directory (serve) rather than in memory (tests). */
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
  const dataDir = options.persist ? options.config.dataDir : null;
  const [tokenKey, releaseKey] = await Promise.all([
    loadServiceKey(dataDir, 'token-signing'),
    loadServiceKey(dataDir, 'release-signing'),
  ]);
  const packager = new ExtensionPackager(settings.extensionDir, releaseKey);
  const walletOrigin = () =>
    settings.publicUrl ?? originOf(options.wallet, options.config.host, options.config.walletPort);
  const siteOrigin = () =>
    settings.sitePublicUrl ?? originOf(options.site, options.config.host, options.config.sitePort);
  const collector = options.chain.fundingAccount?.address;
  await options.wallet.register(walletRoutes, {
    db: options.db,
    dispatcher: options.dispatcher,
    clock: options.clock,
    settings,
    tokenKeys: [tokenKey],
    packager,
    walletOrigin,
    siteOrigin,
    // D-088, D-151: by default the native chain's fee goes to the operator's funding account, whose key only the server holds.
    defaultCollectors: collector ? [{ chainId: '1111111', address: getAddress(collector) }] : [],
  });
  await options.site.register(extensionSiteRoutes, { packager });
}
