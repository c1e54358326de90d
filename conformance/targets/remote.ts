import { isLoopback } from './rpc.ts';
import type { Capability, Target } from './target.ts';

/** The URLs (and optional CA) of a vendor's deployment. */
export interface RemoteTargetOptions {
  /** {base_url}: HTTPS root of the service host. */
  base?: string | URL;
  /** {wallet_api_url}: HTTPS base of the wallet session API. */
  wallet?: string | URL;
  /** {site_url}: HTTPS root of the vendor web site. */
  site?: string | URL;
  /** PEM text of an extra CA certificate to trust (e.g. the reference stack's dev certificate). */
  caCert?: string;
  /** The deployment's administrator token (D-048): enables the checks that need the admin API ('admin'). */
  adminToken?: string;
  /** An institutional API key of a second tenant (D-242). */
  secondToken?: string;
  /** Host name or IP at which the deployment can reach the harness's webhook receiver (webhook checks). */
  receiverHost?: string;
  /** Fixed port of the harness's webhook receiver (default: ephemeral). */
  receiverPort?: number;
}

const ORIGINS = ['base', 'wallet', 'site'] as const;

/** The origins of `target` served over plain http (loopback only, D-233), for the run's warning. */
export function plainHttpOrigins(target: Target): string[] {
  return ORIGINS.flatMap((name) => (target[name]?.protocol === 'http:' ? [`--${name} ${target[name]?.origin}`] : []));
}

/**
 * A deployment given by URL. Each given URL must be an https URL (spec: "Plain HTTP connections are
 * rejected"); the target offers 'specs' plus one capability per URL given.
 */
export function remoteTarget(options: RemoteTargetOptions): Target {
  const target: Target = { kind: 'remote', capabilities: new Set<Capability>(['specs']) };
  for (const name of ORIGINS) {
    const raw = options[name];
    if (raw === undefined) continue;
    target[name] = httpsUrl(name, raw);
    target.capabilities.add(name);
  }
  // {base_url}/rpc is the chain JSON-RPC endpoint of a deployment.
  if (target.base) target.capabilities.add('rpc');
  if (!ORIGINS.some((name) => target[name])) {
    throw new Error('a remote target needs at least one of "base", "wallet", "site" (https URLs)');
  }
  if (options.adminToken !== undefined) {
    if (!/^svcadm_[A-Za-z0-9_-]{43}$/.test(options.adminToken))
      throw new Error('"adminToken" expected svcadm_ followed by 43 base64url characters (D-039)');
    target.adminToken = options.adminToken;
    target.capabilities.add('admin');
  }
  if (options.secondToken !== undefined) {
    if (!/^svc_[A-Za-z0-9_-]{43}$/.test(options.secondToken))
      throw new Error('"secondToken" expected svc_ followed by 43 base64url characters (D-039)');
    target.secondToken = options.secondToken;
  }
  if (options.receiverHost !== undefined) target.receiverHost = options.receiverHost;
  if (options.receiverPort !== undefined) target.receiverPort = options.receiverPort;
  if (options.caCert !== undefined) {
    if (!options.caCert.includes('-----BEGIN CERTIFICATE-----')) {
      throw new Error('"caCert" expected PEM text containing -----BEGIN CERTIFICATE-----');
    }
    target.caCert = options.caCert;
  }
  return target;
}

/** Parses one origin URL; refuses anything but a plain https URL so every report names a real root. */
function httpsUrl(name: string, raw: string | URL): URL {
  const text = String(raw);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new Error(`"${name}" expected an https URL, got ${JSON.stringify(text)}`);
  }
  // D-233: plain http only on a loopback address (a validating mock, a service behind a local TLS-terminating
  // proxy); the transport checks still fail there, as the spec requires HTTPS.
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopback(url.hostname))) {
    throw new Error(
      `"${name}" expected an https URL, or http on a loopback address (127.0.0.1, ::1, localhost), got ${JSON.stringify(text)} (scheme ${url.protocol})`,
    );
  }
  if (url.username || url.password) {
    throw new Error(`"${name}" expected an https URL without credentials, got one with user info`);
  }
  if (url.search || url.hash) {
    throw new Error(`"${name}" expected an https URL without query or fragment, got ${JSON.stringify(text)}`);
  }
  // A trailing slash makes relative resolution keep the path (new URL('api/stats', base)).
  if (!url.pathname.endsWith('/')) url.pathname += '/';
  return url;
}
