/**
 * The engine's view of a harness target: the base URL of each contract and the credentials it may send.
 * With an admin token it issues its own institutional bearer key through the admin API (D-048), so
 * authorised operations get real credentials.
 */
import { registerCreated } from '../cleanup.ts';
import { keepValidatorSet } from '../qbft-votes.ts';
import { request, rpcUrl } from '../http.ts';
import { MOCK_CREDENTIAL } from '../mocks/server.ts';
import { platformBicOf, type Target } from '../targets/target.ts';
import type { EngineTarget } from './core/types.ts';
import { writeScopeOf } from './openapi/write-effects.ts';

/** Settings that lift the per-IP rate limits of the in-process reference, so generated cases run at full speed. */
export const UNLIMITED_REFERENCE_ENV = {
  SVC_RATE_LIMIT: '0',
  SVC_RATE_LIMIT_WALLET: '0',
  SVC_RATE_LIMIT_WALLET_AUTH: '0',
  SVC_MANAGED_CODES_PER_IP: '0',
} as const;

/** The security schemes of the four OpenAPI contracts (components.securitySchemes). */
const MOCK_SCHEMES = ['bearerKey', 'adminToken', 'sessionToken', 'operatorToken', 'managedToken'];

/** The engine target of `target`; issues a bearer key with every permission of the REST operations (D-015, D-053) when it can. */
export async function engineTargetOf(target: Target): Promise<EngineTarget> {
  const bases: EngineTarget['bases'] = {};
  const credentials: Record<string, string> = {};
  const renew: NonNullable<EngineTarget['renew']> = {};
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
    const { token, id } = (res.json as { token?: unknown; id?: unknown } | undefined) ?? {};
    if (res.status !== 201 || typeof token !== 'string' || typeof id !== 'string')
      throw new Error(`issuing the engine's API key answered HTTP ${res.status}: ${res.text.slice(0, 200)}`);
    credentials.bearerKey = `Bearer ${token}`;
    // D-182: the key is revoked when the run ends, like every credential the harness issues.
    const adminToken = target.adminToken;
    registerCreated(target, {
      kind: 'API key',
      id,
      undo: async () => {
        const gone = await request(target, `admin/v1/api-keys/${id}`, {
          method: 'DELETE',
          headers: { authorization: `Bearer ${adminToken}` },
        });
        if (gone.status !== 204 && gone.status !== 404)
          throw new Error(`DELETE /api-keys/${id} answered ${gone.status}`);
      },
    });
    // The generated admin cases propose QBFT votes, and a valid one passes: the run votes the set back (D-182).
    if (target.kind !== 'mocks') await keepValidatorSet(target);
  }
  // D-083: the operating institution's administrator token also records KYC-verified owners on the wallet
  // service (PUT /owners/{svcId}); it writes only for a registered svcId, so generated ids change nothing.
  if (target.adminToken && target.wallet && target.kind !== 'mocks')
    credentials.operatorToken = `Bearer ${target.adminToken}`;
  // A wallet session (D-005) of a fresh identity, so the operations behind sessionToken get their cases too.
  if (target.wallet && target.kind !== 'mocks') {
    const { login } = await import('../checks/wallet/support.ts');
    credentials.sessionToken = `Bearer ${(await login(target)).token}`;
    // A fresh identity's session again when this one expires mid-run (D-005: sessions live 15 minutes).
    renew.sessionToken = renewer(credentials, 'sessionToken', async () => `Bearer ${(await login(target)).token}`);
  }
  // The mocks accept one credential for every bearer scheme (D-186); the admin contract is exercised too.
  if (target.kind === 'mocks' && target.base) {
    bases.admin = new URL('admin/v1/', target.base);
    for (const scheme of MOCK_SCHEMES) credentials[scheme] ??= MOCK_CREDENTIAL;
  }
  // The chain JSON-RPC endpoint (D-192): a bare node given by --rpc, else {base_url}/rpc of a real service.
  const rpc = target.rpc ?? (target.base && target.kind !== 'mocks' ? rpcUrl(target) : undefined);
  return {
    bases,
    credentials,
    renew,
    // Fields the contracts bind to the deployment (x-deployment-value, D-185).
    deploymentValues: { 'platform-bic': platformBicOf(target) },
    // D-235: the generated writes are put back when the run ends; the mocks keep nothing (D-190).
    ...(target.kind !== 'mocks' ? { writes: await writeScopeOf(target) } : {}),
    ...(target.caCert ? { caCert: target.caCert } : {}),
    // D-190: the mocks answer the contract's examples and keep nothing, so a sequence there proves nothing.
    ...(target.kind === 'mocks' ? { stateless: 'the mocks keep no state: they answer the contract examples' } : {}),
    ...(rpc ? { rpc } : {}),
    ...(target.site ? { site: target.site } : {}),
  };
}

/**
 * The renewal of `credentials[scheme]` by `make` (EngineTarget.renew): given the expired value, the current one;
 * every case holding the same expired value waits for one renewal, a value the scheme never had gets undefined.
 */
export function renewer(
  credentials: Record<string, string>,
  scheme: string,
  make: () => Promise<string>,
): (expired: string) => Promise<string | undefined> {
  const past = new Set<string>();
  let renewing: Promise<string> | undefined;
  return async (expired) => {
    const current = credentials[scheme];
    if (expired !== current) return past.has(expired) ? current : undefined;
    renewing ??= make()
      .then((fresh) => {
        past.add(expired);
        credentials[scheme] = fresh;
        return fresh;
      })
      .finally(() => {
        renewing = undefined;
      });
    return renewing;
  };
}
