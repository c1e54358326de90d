/**
 * Administrator console authentication (D-048): `Authorization: Bearer svcadm_…`, the one-time admin token,
 * compared by hash. D-058: an institutional credential presented here is a 403, anything else missing or
 * wrong a 401.
 */
import type { FastifyRequest } from 'fastify';
import type { Database } from '../../storage/database.ts';
import { isAdminToken } from '../../storage/settings.ts';
import { ErrorCode, RestError } from '../http/errors.ts';

/** Throws 401 or 403 unless the request carries the administrator token. */
export async function requireAdmin(request: FastifyRequest, db: Database): Promise<void> {
  const header = request.headers.authorization;
  if (!header)
    throw new RestError(ErrorCode.UNAUTHENTICATED, 'missing Authorization header: expected "Bearer svcadm_<token>"');
  if (header.startsWith('SVC-MLDSA ') || /^Bearer svc_/.test(header)) {
    throw new RestError(
      ErrorCode.ADMIN_TOKEN_REQUIRED,
      'institutional credentials cannot use the administrator console; use the admin token',
    );
  }
  const match = /^Bearer (svcadm_[A-Za-z0-9_-]{43})$/.exec(header);
  if (!match || !(await isAdminToken(db, match[1]!)))
    throw new RestError(ErrorCode.UNAUTHENTICATED, 'invalid administrator token');
}
