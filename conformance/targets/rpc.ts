/**
 * A bare chain JSON-RPC node as the target (`svckit conformance --rpc <url>`, D-192): the chain checks and
 * the generated JSON-RPC cases run against it directly. Plain http is accepted only for a loopback node (a
 * local Anvil or Besu); anything else must be https (spec: "Plain HTTP connections are rejected").
 */
import net from 'node:net';
import type { Target } from './target.ts';

/** The options of {@link rpcTarget}. */
export interface RpcTargetOptions {
  /** The node's JSON-RPC URL, e.g. `http://127.0.0.1:8545`. */
  url: string | URL;
  /** PEM text of an extra CA certificate to trust (an https node). */
  caCert?: string;
  /** A funded key allowed to send transactions (D-193); without it the checks needing a sender are skipped. */
  senderKey?: string;
}

/** Loopback host names and addresses: 127.0.0.0/8, ::1, localhost. */
export function isLoopback(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost' || host === '::1') return true;
  return net.isIPv4(host) && host.startsWith('127.');
}

/** Parses `--rpc`: an https URL, or an http URL of a loopback node; no user info, query or fragment. */
export function rpcUrl(raw: string | URL): URL {
  const text = String(raw);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new Error(`"rpc" expected an http(s) URL, got ${JSON.stringify(text)}`);
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopback(url.hostname)))
    throw new Error(
      `"rpc" expected an https URL, or http for a loopback node (127.0.0.1, ::1, localhost), got ${JSON.stringify(text)}`,
    );
  if (url.username || url.password) throw new Error('"rpc" expected a URL without credentials, got one with user info');
  if (url.search || url.hash)
    throw new Error(`"rpc" expected a URL without query or fragment, got ${JSON.stringify(text)}`);
  return url;
}

/** Parses `--rpc-sender-key`: 32 bytes of hex, with or without 0x; the key itself never appears in an error. */
export function senderKeyOf(raw: string): `0x${string}` {
  const hex = raw.trim().replace(/^0x/i, '');
  if (!/^[0-9a-fA-F]{64}$/.test(hex))
    throw new Error(`"rpc-sender-key" expected 32 bytes of hex (64 digits, optional 0x), got ${hex.length} characters`);
  return `0x${hex.toLowerCase()}`;
}

/** The target of a bare node: capabilities 'specs' and 'rpc' only. */
export function rpcTarget(options: RpcTargetOptions): Target {
  const target: Target = { kind: 'rpc', rpc: rpcUrl(options.url), capabilities: new Set(['specs', 'rpc']) };
  if (options.caCert !== undefined) {
    if (!options.caCert.includes('-----BEGIN CERTIFICATE-----'))
      throw new Error('"caCert" expected PEM text containing -----BEGIN CERTIFICATE-----');
    target.caCert = options.caCert;
  }
  if (options.senderKey !== undefined) target.rpcSenderKey = senderKeyOf(options.senderKey);
  return target;
}
