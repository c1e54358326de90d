/**
 * Admin handlers for institutional credentials (spec "Authentication"; D-015, D-057, D-059): bearer API keys
 * (`svc_…`, the raw token shown once) and registered ML-DSA-65 public keys, each with permissions and an
 * optional account list. Revocation is soft; the Authenticator reads the store on every request, so a
 * revoked or changed key takes effect on its next request.
 */
import type { RouteHandlers } from '../../../generated/admin/fastify.gen';
import type { ApiKey, MldsaKey } from '@svckit/sdk/admin';
import {
  zAdminCreateApiKeyBody,
  zAdminRegisterMldsaKeyBody,
  zAdminRevokeApiKeyPath,
  zAdminRevokeMldsaKeyPath,
  zAdminUpdateApiKeyBody,
  zAdminUpdateApiKeyPath,
  zAdminUpdateMldsaKeyBody,
  zAdminUpdateMldsaKeyPath,
} from '@svckit/sdk/admin/zod';
import { fromHex, mlDsa65 } from '@svckit/sdk/crypto';
import type { AccountStore } from '../../ledger/accounts.ts';
import {
  mldsaFingerprint,
  type CredentialGrant,
  type CredentialStore,
  type Permission,
} from '../../ledger/credentials.ts';
import type { apiKeys, mldsaKeys } from '../../storage/schema.ts';
import { ErrorCode, RestError } from '../http/errors.ts';
import { guard, strict, requireSome, requireUnique } from '../http/guards.ts';

type Handlers = Pick<
  RouteHandlers,
  | 'adminCreateApiKey'
  | 'adminListApiKeys'
  | 'adminUpdateApiKey'
  | 'adminRevokeApiKey'
  | 'adminRegisterMldsaKey'
  | 'adminListMldsaKeys'
  | 'adminUpdateMldsaKey'
  | 'adminRevokeMldsaKey'
>;

const iso = (date: Date | null) => (date ? date.toISOString() : null);

const PUBLIC_KEY_HEX = mlDsa65.sizes.publicKey * 2;
const PUBLIC_KEY = `${PUBLIC_KEY_HEX} hex characters (ML-DSA-65, ${mlDsa65.sizes.publicKey} bytes)`;

const GRANT = {
  name: 'a name of 1 to 100 characters',
  permissions: 'a non-empty list of permissions',
  accountIds: 'a non-empty list of account ids (acc_ + 26 Crockford base32), or null to lift the restriction',
  'accountIds[]': 'an account id (acc_ + 26 Crockford base32)',
};

/** D-059, D-015: an API key without its secret — the token's hash never leaves the store. */
export function apiKeyView(row: typeof apiKeys.$inferSelect): ApiKey {
  return {
    id: row.id,
    name: row.name,
    tokenPrefix: row.tokenPrefix,
    permissions: row.permissions as ApiKey['permissions'],
    accountIds: row.accountIds ?? null,
    createdAt: row.createdAt.toISOString(),
    lastUsedAt: iso(row.lastUsedAt),
    revokedAt: iso(row.revokedAt),
  };
}

/** D-044, D-031: the public key in lower-case hex and its SHA3-256 fingerprint. */
export function mldsaKeyView(row: typeof mldsaKeys.$inferSelect): MldsaKey {
  return {
    id: row.id,
    name: row.name,
    publicKey: row.publicKeyHex,
    fingerprint: mldsaFingerprint(fromHex(row.publicKeyHex)),
    permissions: row.permissions as MldsaKey['permissions'],
    accountIds: row.accountIds ?? null,
    createdAt: row.createdAt.toISOString(),
    lastUsedAt: iso(row.lastUsedAt),
    revokedAt: iso(row.revokedAt),
  };
}

/** The credential handlers. */
export function credentialHandlers(credentials: CredentialStore, accounts: AccountStore): Handlers {
  /** Checks what the schemas cannot (uniqueItems, existing accounts) and returns the fields to store. */
  const grantOf = async (body: {
    name?: string;
    permissions?: Permission[];
    accountIds?: string[] | null;
  }): Promise<Partial<CredentialGrant>> => {
    requireUnique('permissions', body.permissions);
    requireUnique('accountIds', body.accountIds ?? undefined);
    for (const [i, id] of (body.accountIds ?? []).entries()) {
      // D-015: the restriction names accounts; an id naming none would silently grant nothing.
      if (!(await accounts.find(id)))
        throw new RestError(ErrorCode.UNKNOWN_ACCOUNT, `"accountIds[${i}]" expected an existing account, got "${id}"`);
    }
    return {
      ...(body.name !== undefined ? { name: body.name } : {}),
      ...(body.permissions !== undefined ? { permissions: body.permissions } : {}),
      ...(body.accountIds !== undefined ? { accountIds: body.accountIds } : {}),
    };
  };

  return {
    adminCreateApiKey: async (request, reply) => {
      const body = guard(strict(zAdminCreateApiKeyBody), request.body, GRANT);
      const grant = await grantOf({ ...body, accountIds: body.accountIds ?? null });
      const { row, token } = await credentials.createApiKey(grant as CredentialGrant);
      // spec: "the raw token is displayed once at creation and cannot be recovered"
      return reply.code(201).send({ ...apiKeyView(row), token });
    },
    adminListApiKeys: async (_request, reply) => {
      return reply.code(200).send({ apiKeys: (await credentials.listApiKeys()).map(apiKeyView) });
    },
    adminUpdateApiKey: async (request, reply) => {
      const { id } = guard(zAdminUpdateApiKeyPath, request.params, {
        id: 'an API key id (key_ + 26 Crockford base32)',
      });
      const body = guard(strict(zAdminUpdateApiKeyBody), request.body, GRANT);
      requireSome(body, ['name', 'permissions', 'accountIds']);
      const existing = await credentials.findApiKey(id);
      if (!existing) throw new RestError(ErrorCode.NOT_FOUND, `api key ${id} not found`);
      if (existing.revokedAt) throw new RestError(ErrorCode.REVOKED, `api key ${id} is revoked`); // D-059
      const row = await credentials.updateApiKey(id, await grantOf(body));
      return reply.code(200).send(apiKeyView(row!));
    },
    adminRevokeApiKey: async (request, reply) => {
      const { id } = guard(zAdminRevokeApiKeyPath, request.params, {
        id: 'an API key id (key_ + 26 Crockford base32)',
      });
      // D-059: soft revocation; revoking a revoked key again is a no-op.
      if (!(await credentials.revokeApiKey(id))) throw new RestError(ErrorCode.NOT_FOUND, `api key ${id} not found`);
      return reply.code(204).send();
    },
    adminRegisterMldsaKey: async (request, reply) => {
      checkPublicKeyText((request.body as { publicKey?: unknown } | null)?.publicKey);
      const body = guard(strict(zAdminRegisterMldsaKeyBody), request.body, { ...GRANT, publicKey: PUBLIC_KEY });
      const publicKey = fromHex(body.publicKey);
      const grant = await grantOf({ ...body, accountIds: body.accountIds ?? null });
      const row = await credentials.registerMldsaKey(publicKey, grant as CredentialGrant);
      if (!row) {
        const existing = await credentials.findMldsaKeyByPublicKey(body.publicKey.toLowerCase());
        const fingerprint = mldsaFingerprint(publicKey);
        throw new RestError(
          ErrorCode.DUPLICATE_KEY,
          existing?.revokedAt
            ? `public key with fingerprint ${fingerprint} was registered as ${existing.id} and revoked; a revoked key cannot be registered again, generate a new key pair`
            : `public key with fingerprint ${fingerprint} is already registered as ${existing?.id ?? 'another key'}`,
        );
      }
      return reply.code(201).send(mldsaKeyView(row));
    },
    adminListMldsaKeys: async (_request, reply) => {
      return reply.code(200).send({ mldsaKeys: (await credentials.listMldsaKeys()).map(mldsaKeyView) });
    },
    adminUpdateMldsaKey: async (request, reply) => {
      const { id } = guard(zAdminUpdateMldsaKeyPath, request.params, {
        id: 'an ML-DSA key id (mlk_ + 26 Crockford base32)',
      });
      if (typeof request.body === 'object' && request.body !== null && 'publicKey' in request.body) {
        // D-059: "A registered public key cannot be changed."
        throw new RestError(ErrorCode.INVALID_PARAMETER, '"publicKey" cannot be changed; register a new key instead');
      }
      const body = guard(strict(zAdminUpdateMldsaKeyBody), request.body, GRANT);
      requireSome(body, ['name', 'permissions', 'accountIds']);
      const existing = await credentials.findMldsaKeyById(id);
      if (!existing) throw new RestError(ErrorCode.NOT_FOUND, `ml-dsa key ${id} not found`);
      if (existing.revokedAt) throw new RestError(ErrorCode.REVOKED, `ml-dsa key ${id} is revoked`); // D-059
      const row = await credentials.updateMldsaKey(id, await grantOf(body));
      return reply.code(200).send(mldsaKeyView(row!));
    },
    adminRevokeMldsaKey: async (request, reply) => {
      const { id } = guard(zAdminRevokeMldsaKeyPath, request.params, {
        id: 'an ML-DSA key id (mlk_ + 26 Crockford base32)',
      });
      if (!(await credentials.revokeMldsaKey(id)))
        throw new RestError(ErrorCode.NOT_FOUND, `ml-dsa key ${id} not found`);
      return reply.code(204).send();
    },
  };
}

/**
 * D-044: the hex of the 1,952-byte FIPS 204 encoding, either case; the error gives the length, not the key.
 * FIPS 204 pkDecode (Algorithm 23) accepts every 1,952-byte string (rho is 32 free bytes, t1 packs 10-bit
 * coefficients, all in range), so the length is the whole validity check of an ML-DSA-65 public key.
 */
function checkPublicKeyText(text: unknown): void {
  if (typeof text !== 'string' || (text.length === PUBLIC_KEY_HEX && /^[0-9a-fA-F]*$/.test(text))) return;
  const got = /^[0-9a-fA-F]*$/.test(text) ? `${text.length}` : `${text.length} characters, not all hex`;
  throw new RestError(ErrorCode.INVALID_PARAMETER, `"publicKey" expected ${PUBLIC_KEY}, got ${got}`);
}
