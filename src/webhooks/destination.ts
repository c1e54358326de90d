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
  ['2001::', 32], // Teredo: a tunnel whose IPv4 ends are obfuscated, so they cannot be checked
  ['2001:db8::', 32], // documentation
  ['64:ff9b:1::', 48], // local-use NAT64 (RFC 8215): translates into networks of the operator's own
  ['fc00::', 7], // unique local, with the cloud metadata address fd00:ec2::254
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
] as const) {
  NON_PUBLIC.addSubnet(network, prefix, 'ipv6');
}

/** The 16 bytes of a valid IPv6 literal (zone id dropped, a trailing dotted quad read as the last 4 bytes). */
function ipv6Bytes(address: string): number[] {
  let text = address.split('%')[0]!;
  let quad: number[] = [];
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    quad = dotted.slice(1, 5).map(Number);
    text = `${text.slice(0, dotted.index)}0:0`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups =
    tail === undefined ? left : [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  const bytes = groups.flatMap((g) => [parseInt(g, 16) >> 8, parseInt(g, 16) & 0xff]);
  if (dotted) bytes.splice(12, 4, ...quad);
  return bytes;
}

/**
 * The IPv4 address an IPv6 address carries and would be delivered to, for the translation and tunnel
 * prefixes that embed one: NAT64 64:ff9b::/96 (RFC 6052, the last 4 bytes) and 6to4 2002::/16 (RFC 3056,
 * bytes 2 to 5). D-143: such an address is as public as the IPv4 address inside it.
 */
function embeddedIpv4(address: string): string | undefined {
  const b = ipv6Bytes(address);
  const nat64 =
    b[0] === 0x00 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b && b.slice(4, 12).every((x) => x === 0);
  if (nat64) return b.slice(12, 16).join('.');
  if (b[0] === 0x20 && b[1] === 0x02) return b.slice(2, 6).join('.');
  return undefined;
}

/** Whether `address` (an IPv4 or IPv6 literal, without brackets) is a public unicast address (D-143). */
export function isPublicAddress(address: string): boolean {
  const family = net.isIP(address);
  if (family === 0) return false;
  if (family === 6) {
    const inside = embeddedIpv4(address);
    if (inside !== undefined && !isPublicAddress(inside)) return false;
  }
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
export const systemResolver: Resolver = (hostname, family) =>
  dns.promises.lookup(hostname, { all: true, family: family as 0 | 4 | 6 });

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
        if (addresses.length === 0)
          return callback(Object.assign(new Error('host not found'), { code: 'ENOTFOUND' }), '', 0);
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
