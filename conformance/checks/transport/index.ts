/**
 * Transport checks on every origin the target offers (base, wallet, site). spec: "All institutional REST
 * endpoints are served over HTTPS with hybrid post-quantum TLS (X25519MLKEM768). Plain HTTP connections
 * are rejected." The handshakes are made directly with node:tls so the offered groups and versions are
 * exactly the ones under test.
 */
import net from 'node:net';
import tls from 'node:tls';
import type { Check, CheckContext, CheckVerdict } from '../../catalogue.ts';
import { request } from '../../http.ts';
import type { Target } from '../../targets/target.ts';
import { checkDefiner } from '../define.ts';

/** The hybrid post-quantum group the spec names. */
export const HYBRID_GROUP = 'X25519MLKEM768';

/** What a TLS handshake attempt gave. */
export type Handshake = { ok: true; group: string | undefined; protocol: string | null } | { ok: false; error: string };

/** The origins a target offers, by name. */
function origins(target: Target): [string, URL][] {
  return (['base', 'wallet', 'site'] as const).flatMap((name) =>
    target[name] ? [[name, target[name]] as [string, URL]] : [],
  );
}

const portOf = (url: URL) => Number(url.port || 443);

/** Attempts one TLS handshake offering `groups` (and optionally capping the version); never sends HTTP. */
export function handshake(
  target: Target,
  url: URL,
  options: { groups: string; maxVersion?: tls.SecureVersion },
): Promise<Handshake> {
  return new Promise((resolve) => {
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const socket = tls.connect({
      host,
      port: portOf(url),
      ...(net.isIP(host) ? {} : { servername: host }),
      ca: target.caCert,
      ecdhCurve: options.groups,
      ...(options.maxVersion ? { maxVersion: options.maxVersion, minVersion: 'TLSv1.2' as const } : {}),
      ALPNProtocols: ['http/1.1'],
    });
    const done = (h: Handshake) => {
      socket.destroy();
      resolve(h);
    };
    socket.setTimeout(10_000, () => done({ ok: false, error: 'handshake timed out' }));
    socket.once('secureConnect', () => {
      const info = socket.getEphemeralKeyInfo() as { name?: string } | null;
      done({ ok: true, group: info?.name, protocol: socket.getProtocol() });
    });
    socket.once('error', (error) => done({ ok: false, error: error.message.split('\n')[0] ?? String(error) }));
  });
}

/**
 * Sends a plain-HTTP request to an HTTPS origin's port and collects what comes back until the server
 * closes (or 5 s pass). Returns the bytes received.
 */
export function plainHttp(url: URL): Promise<{ bytes: Buffer; closed: boolean }> {
  return new Promise((resolve) => {
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const body = '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}';
    const chunks: Buffer[] = [];
    const socket = net.connect({ host, port: portOf(url) }, () => {
      socket.write(
        `POST ${url.pathname}rpc HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
      );
    });
    const finish = (closed: boolean) => {
      socket.destroy();
      resolve({ bytes: Buffer.concat(chunks), closed });
    };
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.setTimeout(5_000, () => finish(false));
    socket.once('close', () => finish(true));
    socket.once('error', () => finish(true));
  });
}

/** Runs `probe` on every origin and gathers the problems. */
async function perOrigin(
  ctx: CheckContext,
  probe: (name: string, url: URL) => Promise<string | undefined>,
  passed: string,
): Promise<CheckVerdict> {
  const problems: string[] = [];
  const list = origins(ctx.target);
  for (const [name, url] of list) {
    const problem = await probe(name, url);
    if (problem) problems.push(`${name} (${url.host}): ${problem}`);
  }
  if (problems.length) return { status: 'failed', reason: problems.join('; '), actual: problems };
  return { status: 'passed', reason: `${passed} on ${list.map(([n]) => n).join(', ')}` };
}

/** Defines a transport check: filed under surface A, whose quote it enforces, on every origin of the target. */
const defineCheck = checkDefiner({ surface: 'A', needs: ['base'] });

/** The transport checks. */
export function transportChecks(): Check[] {
  return [
    defineCheck({
      id: 'transport.tls.hybrid_group',
      title: 'a client offering hybrid and classical groups gets TLS 1.3 with X25519MLKEM768',
      source: {
        quote: 'All institutional REST endpoints are served over HTTPS with hybrid post-quantum TLS (X25519MLKEM768).',
      },
      run: async (ctx) => {
        // A browser-like offer: the hybrid group first, classical ones as fallback; the server must pick the hybrid.
        const verdict = await perOrigin(
          ctx,
          async (_name, url) => {
            const h = await handshake(ctx.target, url, { groups: `${HYBRID_GROUP}:X25519:P-256` });
            if (!h.ok) return `handshake failed: ${h.error}`;
            if (h.group !== HYBRID_GROUP || h.protocol !== 'TLSv1.3')
              return `negotiated ${h.protocol} with group ${h.group}, expected TLSv1.3 with ${HYBRID_GROUP}`;
            return undefined;
          },
          `TLSv1.3 with ${HYBRID_GROUP}`,
        );
        if (verdict.status !== 'passed') return verdict;
        // And the JSON-RPC exchange itself runs over that group.
        const rpc = await request(ctx.target, 'rpc', {
          body: { jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] },
        });
        return rpc.tlsGroup === HYBRID_GROUP
          ? { ...verdict, request: rpc.request }
          : {
              status: 'failed',
              reason: `POST /rpc ran over group ${rpc.tlsGroup}, expected ${HYBRID_GROUP}`,
              request: rpc.request,
            };
      },
    }),
    defineCheck({
      id: 'transport.tls.classical_refused',
      title: 'a client offering only classical groups (X25519, P-256) fails the handshake',
      source: { quote: 'HTTPS only, hybrid post-quantum TLS' },
      run: (ctx) =>
        perOrigin(
          ctx,
          async (_name, url) => {
            const h = await handshake(ctx.target, url, { groups: 'X25519:P-256' });
            return h.ok ? `a classical-only client completed a handshake (${h.protocol}, group ${h.group})` : undefined;
          },
          'classical-only handshakes refused',
        ),
    }),
    defineCheck({
      id: 'transport.tls.legacy_version_refused',
      title: 'a TLS 1.2 client fails the handshake (the hybrid group exists only in TLS 1.3)',
      source: {
        quote: 'All institutional REST endpoints are served over HTTPS with hybrid post-quantum TLS (X25519MLKEM768).',
      },
      run: (ctx) =>
        perOrigin(
          ctx,
          async (_name, url) => {
            const h = await handshake(ctx.target, url, {
              groups: `${HYBRID_GROUP}:X25519:P-256`,
              maxVersion: 'TLSv1.2',
            });
            return h.ok ? `a TLS 1.2 client completed a handshake (${h.protocol}, group ${h.group})` : undefined;
          },
          'TLS 1.2 handshakes refused',
        ),
    }),
    defineCheck({
      id: 'transport.plain_http_refused',
      title: 'a plain-HTTP request to an HTTPS origin gets no HTTP answer',
      source: { quote: 'Plain HTTP connections are rejected.' },
      run: (ctx) =>
        perOrigin(
          ctx,
          async (_name, url) => {
            const { bytes, closed } = await plainHttp(url);
            // A TLS alert record (content type 0x15) or nothing at all is a refusal; "HTTP/" is an answer.
            if (bytes.subarray(0, 5).toString('latin1').startsWith('HTTP/'))
              return `answered plain HTTP: ${JSON.stringify(bytes.subarray(0, 80).toString('latin1'))}`;
            if (!closed) return 'the connection stayed open for 5 s instead of being closed';
            return undefined;
          },
          'plain HTTP closed without an HTTP answer',
        ),
    }),
  ];
}
