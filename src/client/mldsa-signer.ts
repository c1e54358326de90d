/**
 * Integrator helper: signs every request of a generated SDK client with the per-request ML-DSA-65 scheme
 * (spec "Option 2"): `Authorization: SVC-MLDSA <pubkey_hex>.<timestamp_ms>.<sig_hex>` over the UTF-8 string
 * `<timestamp_ms>:<METHOD>:<request_path>`. The request path is the target as sent, path and query (D-029);
 * each request gets a fresh hedged signature, so none can be replayed (D-076).
 *
 * That string does not cover the body. On request the helper also binds it (D-225): it sends an RFC 9530
 * `Content-Digest: sha-256=:<base64>:` of the body, signs `<timestamp_ms>:<METHOD>:<request_path>\n<Content-Digest>`
 * and marks the header `SVC-MLDSA <pubkey_hex>.<timestamp_ms>.<sig_hex>.content-digest`, a form svckit servers
 * accept beside the specified one.
 */
import { createHash } from 'node:crypto';
import { mlDsa65, toHex } from '../crypto/index.ts';

/** An ML-DSA-65 key pair: the 1,952-byte public key and the secret key (32-byte seed or 4,032-byte expanded). */
export type MldsaKeyPair = { publicKey: Uint8Array; secretKey: Uint8Array };

/** D-225: the suffix of an SVC-MLDSA header whose signature also covers the Content-Digest header. */
export const CONTENT_DIGEST_BINDING = '.content-digest';

/** The RFC 9530 `Content-Digest` value of a body: `sha-256=:<base64 of its SHA-256>:` (an empty body too). */
export function contentDigest(body: string | Uint8Array = new Uint8Array()): string {
  return `sha-256=:${createHash('sha256').update(body).digest('base64')}:`;
}

/**
 * The Authorization header value for one request. With `digest` (a Content-Digest value sent with the
 * request), the signature covers it too and the header carries the D-225 binding suffix.
 */
export function mldsaAuthorization(
  keys: MldsaKeyPair,
  method: string,
  target: string,
  timestampMs: number = Date.now(),
  digest?: string,
): string {
  const signed = `${timestampMs}:${method.toUpperCase()}:${target}`;
  // D-225: a line feed cannot occur in a request target, so no specified message equals a bound one.
  const message = new TextEncoder().encode(digest === undefined ? signed : `${signed}\n${digest}`);
  const signature = mlDsa65.sign(keys.secretKey, message);
  return `SVC-MLDSA ${toHex(keys.publicKey)}.${timestampMs}.${toHex(signature)}${digest === undefined ? '' : CONTENT_DIGEST_BINDING}`;
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

/** Options of {@link signRequestsWithMldsa}. */
export type MldsaSigningOptions = {
  /**
   * Also bind the body (D-225): send `Content-Digest` and sign it. Only svckit servers accept the bound form;
   * default false, the specified scheme.
   */
  contentDigest?: boolean;
};

/** Adds an SVC-MLDSA signature to every request made with `client`; `now` is the clock (default Date.now). */
export function signRequestsWithMldsa(
  client: InterceptableClient,
  keys: MldsaKeyPair,
  now: () => number = Date.now,
  options: MldsaSigningOptions = {},
): void {
  client.interceptors.request.use(async (request) => {
    const target = requestTarget(request.url);
    if (!options.contentDigest) {
      request.headers.set('Authorization', mldsaAuthorization(keys, request.method, target, now()));
      return request;
    }
    const digest = contentDigest(new Uint8Array(await request.clone().arrayBuffer()));
    request.headers.set('Content-Digest', digest);
    request.headers.set('Authorization', mldsaAuthorization(keys, request.method, target, now(), digest));
    return request;
  });
}
