/**
 * D-261: the credential of a /ws upgrade that carries no Authorization header. A WHATWG WebSocket (browsers,
 * Node's global WebSocket, and so viem's `webSocket` transport) cannot set request headers, so such a client
 * may give its bearer API key as the `access_token` query parameter (RFC 6750 §2.3). The header, when present,
 * is the credential and the query is not read; SVC-MLDSA is a header only.
 */
import type { FastifyRequest } from 'fastify';
import { ErrorCode, RestError } from '../../http/errors.ts';

/** The form of a bearer API key (D-015): `svc_` and 43 base64url characters. */
const API_KEY = /^svc_[A-Za-z0-9_-]{43}$/;

/** The Authorization value the upgrade is authenticated with: its header, or `Bearer <access_token>`; undefined when neither. */
export function upgradeAuthorization(request: Pick<FastifyRequest, 'headers' | 'url'>): string | undefined {
  if (request.headers.authorization !== undefined) return request.headers.authorization;
  const query = request.url.indexOf('?');
  if (query < 0) return undefined;
  const tokens = new URLSearchParams(request.url.slice(query + 1)).getAll('access_token');
  if (tokens.length === 0) return undefined;
  if (tokens.length > 1)
    throw new RestError(ErrorCode.UNAUTHENTICATED, '"access_token" given more than once; give one API key');
  if (!API_KEY.test(tokens[0]!))
    throw new RestError(
      ErrorCode.UNAUTHENTICATED,
      '"access_token" expected "svc_" followed by 43 base64url characters',
    );
  return `Bearer ${tokens[0]}`;
}
