/**
 * Where the dispatcher may connect (D-143): a receiver is an institution's public HTTPS endpoint, so
 * loopback, private, shared (CGNAT), link-local (the cloud metadata address among them), unspecified,
 * multicast, reserved and documentation addresses are refused, for IPv4 and IPv6 alike (an IPv4-mapped IPv6
 * address counts as its IPv4 address). The check runs on the addresses DNS returned, and the connection is
 * made to exactly those addresses: no second lookup between the check and the connect. Only
 * SVC_WEBHOOK_ALLOW_PRIVATE (development and tests) lifts it.
 */
import dns from 'node:dns';
import net, { type LookupFunction } from 'node:net';

/** The error code of a refused destination; the attempt record says only "destination not allowed". */
export const DESTINATION_REFUSED = 'ERR_SVC_WEBHOOK_DESTINATION';

/** The ranges no delivery goes to (D-143; RFC 6890 special-purpose registries). */
const NON_PUBLIC = new net.BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this network", the unspecified address
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // shared address space (CGNAT)
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, with the cloud metadata address 169.254.169.254
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, with the broadcast address
] as const) {
  NON_PUBLIC.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['::', 96], // IPv4-compatible (deprecated)
  ['100::', 64], // discard
  ['2001:db8::', 32], // documentation
  ['fc00::', 7], // unique local, with the cloud metadata address fd00:ec2::254
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
] as const) {
  NON_PUBLIC.addSubnet(network, prefix, 'ipv6');
}

/** Whether `address` (an IPv4 or IPv6 literal, without brackets) is a public unicast address (D-143). */
export function isPublicAddress(address: string): boolean {
  const family = net.isIP(address);
  if (family === 0) return false;
  try {
    // BlockList matches an IPv4-mapped IPv6 address (::ffff:a.b.c.d) against the IPv4 rules as well.
    return !NON_PUBLIC.check(address, family === 4 ? 'ipv4' : 'ipv6');
  } catch {
    // An address the list cannot read is not known to be public.
    return false;
  }
}

/** The IP address a URL's hostname is written as (`[::1]` → `::1`), or undefined for a DNS name. */
export function literalAddress(hostname: string): string | undefined {
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  return net.isIP(bare) ? bare : undefined;
}

/** A literal non-public address in `url` (D-143: refused at registration), or undefined. */
export function refusedLiteral(url: string): string | undefined {
  let hostname: string;
  try {
    hostname = new URL(url).hostname;
  } catch {
    return undefined;
  }
  const literal = literalAddress(hostname);
  return literal !== undefined && !isPublicAddress(literal) ? literal : undefined;
}

/** One resolved address. */
export type ResolvedAddress = { address: string; family: number };

/** Resolves a host name to every address (the seam tests use to play DNS). */
export type Resolver = (hostname: string, family: number) => Promise<ResolvedAddress[]>;

/** The system resolver (getaddrinfo, as Node's own connections use). */
export const systemResolver: Resolver = (hostname, family) => dns.promises.lookup(hostname, { all: true, family: family as 0 | 4 | 6 });

const refused = () => Object.assign(new Error('destination not allowed'), { code: DESTINATION_REFUSED });

/**
 * A `lookup` for the HTTPS agent: resolves with `resolver`, refuses the name when any of its addresses is not
 * public (unless `allowPrivate`), and hands the checked addresses to the socket, which connects to them
 * without resolving again. TLS still verifies the certificate against the URL's host name.
 */
export function checkedLookup(resolver: Resolver, allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    resolver(hostname, options.family === 4 || options.family === 6 ? options.family : 0).then(
      (addresses) => {
        if (addresses.length === 0) return callback(Object.assign(new Error('host not found'), { code: 'ENOTFOUND' }), '', 0);
        // One non-public address refuses the name: the socket may try any of them.
        if (!allowPrivate && addresses.some((a) => !isPublicAddress(a.address))) return callback(refused(), '', 0);
        if (options.all) return (callback as unknown as (e: null, all: ResolvedAddress[]) => void)(null, addresses);
        return callback(null, addresses[0]!.address, addresses[0]!.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 0),
    );
  };
}

/** The literal-address check of one attempt: an Error to fail it with, or undefined to go ahead (D-143). */
export function literalRefusal(hostname: string, allowPrivate: boolean): Error | undefined {
  const literal = literalAddress(hostname);
  // Node connects to a literal address without calling lookup, so it is checked here.
  return literal !== undefined && !allowPrivate && !isPublicAddress(literal) ? refused() : undefined;
}
