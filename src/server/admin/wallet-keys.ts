/** Admin handler for the rotation of the wallet service's signing keys (D-214, D-215). */
import type { RouteHandlers } from '../../../generated/admin/fastify.gen';
import { zAdminRotateWalletKeyPath } from '@svckit/sdk/admin/zod';
import type { Clock } from '@svckit/sdk/clock';
import type { Keyring } from '../../ledger/keyring.ts';
import type { Database } from '../../storage/database.ts';
import { guard } from '../http/guards.ts';
import { rotateServiceKey } from '../wallet/keys.ts';

/** What the rotation needs: the database and KEK the key sets are sealed in, and SVC_WALLET_KEY_GRACE_S. */
export type WalletKeyDeps = { db: Database; keyring: Keyring; clock: Clock; graceMs: number };

/** POST /wallet-keys/{name}/rotate: every instance signs with the new key within KEY_REFRESH_MS (D-215). */
export function walletKeyHandlers(deps: WalletKeyDeps): Pick<RouteHandlers, 'adminRotateWalletKey'> {
  // Rotations of one key set on this instance run one after another: their compare-and-set on the sealed set
  // (D-214) then races only other instances, and a burst of rotations is never an exhausted retry (a 500).
  const turns = new Map<string, Promise<unknown>>();
  const inTurn = <T>(name: string, work: () => Promise<T>): Promise<T> => {
    const mine = (turns.get(name) ?? Promise.resolve()).then(work, work);
    turns.set(
      name,
      mine.catch(() => undefined),
    );
    return mine;
  };
  return {
    adminRotateWalletKey: async (request, reply) => {
      const { name } = guard(zAdminRotateWalletKeyPath, request.params, {
        name: 'one of token-signing, release-signing',
      });
      const rotation = await inTurn(name, () => rotateServiceKey({ ...deps, name }));
      return reply.code(200).send({
        ok: true,
        name,
        kid: rotation.current.kid,
        previousKid: rotation.retired.kid,
        previousRetiresAt: new Date(rotation.retiresAt).toISOString(),
        rotatedAt: new Date(rotation.rotatedAt).toISOString(),
      });
    },
  };
}
