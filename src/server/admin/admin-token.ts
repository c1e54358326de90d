/**
 * POST /admin/v1/admin-token/rotate (D-221): replaces the administrator token (D-048) and answers the new one,
 * once. The body repeats the current token, so that only a caller who means to rotate it does.
 */
import type { RouteHandlers } from '../../../generated/admin/fastify.gen';
import { zAdminRotateAdminTokenBody } from '@svckit/sdk/admin/zod';
import { dateOf, type Clock } from '@svckit/sdk/clock';
import type { Database } from '../../storage/database.ts';
import { rotateAdminToken } from '../../storage/settings.ts';
import { ErrorCode, RestError } from '../http/errors.ts';
import { strict } from '../http/guards.ts';

const body = strict(zAdminRotateAdminTokenBody);

/** The rotation handler. */
export function adminTokenHandler(db: Database, clock: Clock): Pick<RouteHandlers, 'adminRotateAdminToken'> {
  return {
    adminRotateAdminToken: async (request, reply) => {
      const parsed = body.safeParse(request.body);
      // Unlike guard(), the refusal never repeats the value: a near miss of the token is still a secret.
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!;
        const extra = issue.code === 'unrecognized_keys' ? issue.keys[0] : undefined;
        throw new RestError(
          ErrorCode.INVALID_PARAMETER,
          extra !== undefined
            ? `"${extra}" expected nothing: not a field of this request`
            : '"currentToken" expected svcadm_ followed by 43 base64url characters (the value given is not repeated)',
        );
      }
      const token = await rotateAdminToken(db, parsed.data.currentToken);
      if (!token)
        throw new RestError(
          ErrorCode.INVALID_TRANSITION,
          '"currentToken" is not the current administrator token; nothing was rotated',
        );
      // The answer carries a credential: no cache may keep it (RFC 9111).
      return reply
        .header('cache-control', 'no-store')
        .code(200)
        .send({ token, rotatedAt: dateOf(clock).toISOString() });
    },
  };
}
