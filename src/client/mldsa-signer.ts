/**
 * Integrator helper: signs every request of a generated SDK client with the per-request ML-DSA-65 scheme
 * (spec "Option 2"): `Authorization: SVC-MLDSA <pubkey_hex>.<timestamp_ms>.<sig_hex>` over the UTF-8 string
 * `<timestamp_ms>:<METHOD>:<request_path>`. The request path is the target as sent, path and query (D-029);
 * each request gets a fresh hedged signature, so none can be replayed (D-076).
 */
import { mlDsa65, toHex } from '../crypto/index.ts';

/** An ML-DSA-65 key pair: the 1,952-byte public key and the secret key (32-byte seed or 4,032-byte expanded). */
export type MldsaKeyPair = { publicKey: Uint8Array; secretKey: Uint8Array };

/** The Authorization header value for one request. */
export function mldsaAuthorization(
  keys: MldsaKeyPair,
  method: string,
  target: string,
  timestampMs: number = Date.now(),
): string {
  const message = new TextEncoder().encode(`${timestampMs}:${method.toUpperCase()}:${target}`);
  const signature = mlDsa65.sign(keys.secretKey, message);
  return `SVC-MLDSA ${toHex(keys.publicKey)}.${timestampMs}.${toHex(signature)}`;
}

/** The request target of a URL as sent on the wire: path plus query. */
export const requestTarget = (url: string | URL) => {
  const parsed = new URL(url);
  return `${parsed.pathname}${parsed.search}`;
};

/** The part of a generated hey-api client this helper needs. */
type InterceptableClient = {
  interceptors: { request: { use(fn: (request: Request) => Request | Promise<Request>): number } };
};

/** Adds an SVC-MLDSA signature to every request made with `client`; `now` is the clock (default Date.now). */
export function signRequestsWithMldsa(
  client: InterceptableClient,
  keys: MldsaKeyPair,
  now: () => number = Date.now,
): void {
  client.interceptors.request.use((request) => {
    request.headers.set('Authorization', mldsaAuthorization(keys, request.method, requestTarget(request.url), now()));
    return request;
  });
}
