// Shared fixtures of the wallet client tests.
/** The standard BIP-39 test mnemonic (BIP-39's own test vector): entropy of 16 zero bytes. */
export const TEST_MNEMONIC =
  'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
/** Small Argon2id parameters that keep round trips fast; the defaults are exercised once and by the benchmark. */
export const FAST_ARGON2 = { memoryKiB: 8 * 1024, passes: 1, parallelism: 1 } as const;

import https from 'node:https';

/** A fetch over node:https that trusts `ca` (the reference stack's dev CA), for the generated clients. */
export function tlsFetch(ca: string | Buffer): typeof fetch {
  return (async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = input instanceof Request ? input : new Request(input, init);
    const body = request.body ? Buffer.from(await request.arrayBuffer()) : undefined;
    return new Promise<Response>((resolve, reject) => {
      const headers = {
        ...Object.fromEntries(request.headers),
        ...(body ? { 'content-length': String(body.length) } : {}),
      };
      const req = https.request(request.url, { method: request.method, headers, ca, agent: false }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const status = res.statusCode ?? 0;
          const answered = Object.entries(res.headers).flatMap(([k, v]) =>
            v === undefined ? [] : [[k, Array.isArray(v) ? v.join(', ') : v] as [string, string]],
          );
          resolve(
            new Response(status === 204 || status === 304 ? null : Buffer.concat(chunks), {
              status,
              headers: answered,
            }),
          );
        });
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(body);
    });
  }) as typeof fetch;
}
