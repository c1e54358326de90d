/**
 * The engine's view of a harness target: the base URL of each contract and the credentials it may send.
 * With an admin token it issues its own institutional bearer key through the admin API (D-048), so
 * authorised operations get real credentials.
 */
import { request } from '../http.ts';
import type { Target } from '../targets/target.ts';
import type { EngineTarget } from './run.ts';

/** Settings that lift the per-IP rate limits of the in-process reference, so generated cases run at full speed. */
export const UNLIMITED_REFERENCE_ENV = {
  SVC_RATE_LIMIT: '0',
  SVC_RATE_LIMIT_WALLET: '0',
  SVC_RATE_LIMIT_WALLET_AUTH: '0',
} as const;

/** The engine target of `target`; issues a bearer key with every permission of the REST operations (D-015, D-053) when it can. */
export async function engineTargetOf(target: Target): Promise<EngineTarget> {
  const bases: EngineTarget['bases'] = {};
  const credentials: Record<string, string> = {};
  if (target.base) {
    bases.institutional = new URL('wallet/api/v1/', target.base);
    bases.explorer = new URL('api/', target.base);
    if (target.adminToken) bases.admin = new URL('admin/v1/', target.base);
  }
  if (target.wallet) bases.wallet = target.wallet;
  if (target.adminToken && target.base) {
    credentials.adminToken = `Bearer ${target.adminToken}`;
    const res = await request(target, 'admin/v1/api-keys', {
      method: 'POST',
      headers: { authorization: `Bearer ${target.adminToken}` },
      body: {
        name: 'conformance-engine',
        permissions: ['accounts:read', 'transfers:read', 'transfers:write', 'bank:connect', 'payments:write'],
      },
    });
    const token = (res.json as { token?: unknown } | undefined)?.token;
    if (res.status !== 201 || typeof token !== 'string')
      throw new Error(`issuing the engine's API key answered HTTP ${res.status}: ${res.text.slice(0, 200)}`);
    credentials.bearerKey = `Bearer ${token}`;
  }
  return { bases, credentials, ...(target.caCert ? { caCert: target.caCert } : {}) };
}
