// Shared helpers of the institutional REST API checks (surface A): calls to {base}/wallet/api/v1 with either
// credential (spec "two methods, one of which must be used on every request"), validation of every answer
// against specs/institutional.openapi.yaml, and the accounts and credentials each target needs, created
// through the administrator API (D-048) with the target's admin token.
import { randomBytes } from 'node:crypto';
import type { Hex } from 'viem';
import type { Permission } from '@svckit/sdk/admin';
import type { Operation } from '../../../generated/institutional/routes.gen';
import { mldsaAuthorization } from '@svckit/sdk/signer';
import { mlDsa65, toHex, type MlDsa65KeyPair } from '@svckit/sdk/crypto';
import type { CheckContext } from '../../catalogue.ts';
import { registerCreated } from '../../cleanup.ts';
import { request, type HttpResult } from '../../http.ts';
import type { Capability, Target } from '../../targets/target.ts';
import { checkDefiner, Unavailable } from '../define.ts';
import { operationProblems } from '../support/openapi.ts';

/** Checks that create accounts and credentials through the admin API. */
export const WITH_ADMIN: readonly Capability[] = ['base', 'admin'];
/** Checks that also drive the in-process stack (its clock, its chain node, a crash). */
export const WITH_REFERENCE: readonly Capability[] = ['base', 'admin', 'reference'];

/** The operations of surface A, as `METHOD /route` of the contract (generated: a new operation appears here by itself). */
export type { Operation };

/** Defines a surface-A check (needs: WITH_ADMIN unless it names its own). */
export const defineCheck = checkDefiner({ surface: 'A', needs: WITH_ADMIN });

/**
 * Problems with an answer to `operation`: a status other than `status`, a status the contract does not
 * declare for it, a body that is not JSON or fails the declared schema. `what` names the case in messages.
 */
export function contractProblems(
  ctx: CheckContext,
  operation: Operation,
  res: HttpResult,
  status: number,
  what = '',
): Promise<string[]> {
  return operationProblems(ctx.specsDir, 'institutional.openapi.yaml', operation, res, status, what);
}

/** The `code` of an error body, if any. */
export const codeOf = (res: HttpResult) => (res.json as { code?: unknown } | undefined)?.code;

/** How a request authenticates: a bearer key, an ML-DSA key pair (signed afresh per attempt), a raw header, or nothing. */
export type Credential =
  | { bearer: string }
  | { mldsa: MlDsa65KeyPair; skewMs?: number; signMethod?: string; signTarget?: (wire: string) => string }
  | { header: string }
  | null;

/** The target's clock: the reference stack's own, else this machine's (a remote target is assumed NTP-synchronised). */
export const serverNow = (target: Target) => target.reference?.now?.() ?? Date.now();

/** The request target as sent on the wire for `{base}/wallet/api/v1<path>` (D-029: path plus query). */
export const wireTarget = (target: Target, path: string) => {
  const url = new URL(`wallet/api/v1${path}`, target.base);
  return `${url.pathname}${url.search}`;
};

/** The Authorization value of `credential` for one attempt. */
function authorization(target: Target, credential: Credential, method: string, path: string): string | undefined {
  if (credential === null) return undefined;
  if ('bearer' in credential) return `Bearer ${credential.bearer}`;
  if ('header' in credential) return credential.header;
  const wire = wireTarget(target, path);
  const signed = credential.signTarget ? credential.signTarget(wire) : wire;
  return mldsaAuthorization(
    credential.mldsa,
    credential.signMethod ?? method,
    signed,
    serverNow(target) + (credential.skewMs ?? 0),
  );
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Seconds of a 429's Retry-After (at least 1). */
export const retryAfterMs = (res: HttpResult) => Math.max(1, Number(res.headers['retry-after']) || 1) * 1000;

/**
 * A call to `{base}/wallet/api/v1<path>`. spec: "10 requests per second per IP": the harness's HTTP layer waits
 * out a 429 and sends the request again (D-180), signed afresh, so that only the rate-limit checks ever see one.
 */
export function inst(
  target: Target,
  method: string,
  path: string,
  credential: Credential,
  options: { body?: unknown; headers?: Record<string, string> } = {},
): Promise<HttpResult> {
  return request(target, `wallet/api/v1${path}`, {
    method,
    sign: () => {
      const header = authorization(target, credential, method, path);
      return { ...(header !== undefined ? { authorization: header } : {}), ...options.headers };
    },
    ...(options.body !== undefined ? { body: options.body } : {}),
  });
}

/** A call to `{base}/admin/v1<path>` with the target's administrator token (429s waited out as above). */
export function adminCall(target: Target, method: string, path: string, body?: unknown): Promise<HttpResult> {
  if (!target.adminToken) throw new Unavailable('the target has no administrator token (D-048)');
  return request(target, `admin/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${target.adminToken}` },
    ...(body !== undefined ? { body } : {}),
    timeoutMs: 70_000,
  });
}

/** An undo that sends one admin call and accepts `statuses` (e.g. 204, or 404 when already gone). */
export const adminUndo =
  (target: Target, method: string, path: string, body: unknown, statuses: readonly number[]) =>
  async (): Promise<void> => {
    const res = await adminCall(target, method, path, body);
    if (!statuses.includes(res.status))
      throw new Error(`admin ${method} ${path} answered HTTP ${res.status}: ${res.text.slice(0, 200)}`);
  };

/** The JSON body of an admin call that must answer `status`; throws naming the call otherwise. */
export async function adminJson<T>(
  target: Target,
  method: string,
  path: string,
  body: unknown,
  status: number,
): Promise<T> {
  const res = await adminCall(target, method, path, body);
  if (res.status === 409 && codeOf(res) === 'FUNDING_UNAVAILABLE')
    throw new Unavailable(`funding accounts needs the local chain (D-061): ${res.text.slice(0, 200)}`);
  if (res.status !== status)
    throw new Error(
      `admin ${method} ${path} answered HTTP ${res.status}, expected ${status}: ${res.text.slice(0, 300)}`,
    );
  return res.json as T;
}

/** The Account object (spec "Account (A)"). */
export type AccountView = {
  id: string;
  reference: string;
  email: string;
  status: string;
  dailyLimit: number;
  singleLimit: number;
  address: Hex;
  balance: string;
};
/** The Transfer object (spec "Transfer (A)"). */
export type TransferView = {
  txRef: string;
  txHash: Hex;
  fromAddress: Hex;
  toAddress: Hex;
  amount: string;
  direction: string;
  status: string;
  blockNumber: number | null;
  timestamp: number | null;
  createdAt: string;
};
/** The transfer creation response (spec "Transfer creation response (A)"). */
export type Created = { ok: boolean; txRef: string; txHash: Hex; status: string };

/** The four permissions of surface A (D-015). */
export const A_PERMISSIONS = [
  'accounts:read',
  'transfers:read',
  'transfers:write',
  'bank:connect',
] as const satisfies readonly Permission[];

/** Creates an approved account (limits in units, D-002) and funds it with `fund` units on the local chain (D-061). */
export async function newAccount(
  target: Target,
  options: { dailyLimit?: number; singleLimit?: number; fund?: string } = {},
): Promise<AccountView> {
  const email = `conformance-${Date.now().toString(36)}-${randomBytes(4).toString('hex')}@bank.example`;
  const body = { email, dailyLimit: options.dailyLimit ?? 1_000_000, singleLimit: options.singleLimit ?? 100_000 };
  const account = await adminJson<AccountView>(target, 'POST', '/accounts', body, 201);
  // D-008: accounts cannot be deleted; closing is terminal and takes the address off the allow-list (D-152).
  registerCreated(target, {
    kind: 'account',
    id: account.id,
    undo: adminUndo(target, 'PATCH', `/accounts/${account.id}`, { status: 'closed' }, [200]),
  });
  if (!options.fund) return account;
  const funded = await adminJson<{ balance: string }>(
    target,
    'POST',
    `/accounts/${account.id}/fund`,
    { amount: options.fund },
    200,
  );
  return { ...account, balance: funded.balance };
}

/** Issues a bearer API key (D-015) and returns its raw token, shown once. */
export async function apiKey(
  target: Target,
  permissions: readonly Permission[],
  accountIds?: string[],
): Promise<string> {
  const body = { name: 'conformance', permissions, ...(accountIds ? { accountIds } : {}) };
  const created = await adminJson<{ id: string; token: string }>(target, 'POST', '/api-keys', body, 201);
  registerCreated(target, {
    kind: 'API key',
    id: created.id,
    undo: adminUndo(target, 'DELETE', `/api-keys/${created.id}`, undefined, [204, 404]),
  });
  return created.token;
}

/** Generates an ML-DSA-65 key pair here and registers only its public key (spec: "registers only the public key"). */
export async function mldsaKey(
  target: Target,
  permissions: readonly Permission[],
  accountIds?: string[],
): Promise<MlDsa65KeyPair> {
  const keys = mlDsa65.keygen();
  const body = {
    name: 'conformance',
    publicKey: toHex(keys.publicKey),
    permissions,
    ...(accountIds ? { accountIds } : {}),
  };
  const created = await adminJson<{ id: string }>(target, 'POST', '/mldsa-keys', body, 201);
  registerCreated(target, {
    kind: 'ML-DSA key',
    id: created.id,
    undo: adminUndo(target, 'DELETE', `/mldsa-keys/${created.id}`, undefined, [204, 404]),
  });
  return keys;
}

/** What most checks share on one target. */
export type Fixture = {
  /** Funded with 1000.00 units; sent `first`. */
  sender: AccountView;
  /** On the platform; received `first`. */
  recipient: AccountView;
  /** An account none of the scoped credentials may use. */
  outsider: AccountView;
  /** Bearer key: the four permissions, every account. */
  full: string;
  /** Bearer key: the four permissions, only sender and recipient (D-015 accountIds). */
  scoped: string;
  /** Bearer key: accounts:read only. */
  readOnly: string;
  /** Bearer key: transfers:read only. */
  transfersOnly: string;
  /** ML-DSA key pair: the four permissions, every account. */
  keys: MlDsa65KeyPair;
  /** A confirmed transfer of 1.00 from sender to recipient. */
  first: TransferView;
};

const fixtures = new WeakMap<Target, Promise<Fixture>>();

/** The target's fixture, created once (through the admin API) and shared by the checks. */
export function fixture(target: Target): Promise<Fixture> {
  let made = fixtures.get(target);
  if (!made) {
    made = makeFixture(target);
    made.catch(() => fixtures.delete(target));
    fixtures.set(target, made);
  }
  return made;
}

async function makeFixture(target: Target): Promise<Fixture> {
  const sender = await newAccount(target, { fund: '1000.00' });
  const recipient = await newAccount(target);
  const outsider = await newAccount(target);
  const [full, scoped, readOnly, transfersOnly, keys] = await Promise.all([
    apiKey(target, A_PERMISSIONS),
    apiKey(target, A_PERMISSIONS, [sender.id, recipient.id]),
    apiKey(target, ['accounts:read']),
    apiKey(target, ['transfers:read']),
    mldsaKey(target, A_PERMISSIONS),
  ]);
  const created = await inst(
    target,
    'POST',
    '/transfers',
    { bearer: full },
    { body: { fromAccountId: sender.id, to: recipient.address, amount: '1.00' } },
  );
  if (created.status !== 201)
    throw new Error(`fixture: POST /transfers answered HTTP ${created.status}: ${created.text.slice(0, 300)}`);
  const first = await settled(target, { bearer: full }, (created.json as Created).txRef);
  if (first.status !== 'confirmed')
    throw new Error(`fixture: the first transfer ended ${first.status}, expected confirmed`);
  return { sender, recipient, outsider, full, scoped, readOnly, transfersOnly, keys, first };
}

/** GET /transfers/{reference}; throws unless 200. */
export async function transferOf(target: Target, credential: Credential, txRef: string): Promise<TransferView> {
  const res = await inst(target, 'GET', `/transfers/${txRef}`, credential);
  if (res.status !== 200)
    throw new Error(`GET /transfers/${txRef} answered HTTP ${res.status}: ${res.text.slice(0, 300)}`);
  return res.json as TransferView;
}

/** Polls GET /transfers/{reference} until the transfer leaves pending (the reference stack is asked for a block if slow). */
export async function settled(
  target: Target,
  credential: Credential,
  txRef: string,
  timeoutMs = 30_000,
): Promise<TransferView> {
  const deadline = Date.now() + timeoutMs;
  for (let poll = 0; ; poll++) {
    const transfer = await transferOf(target, credential, txRef);
    if (transfer.status !== 'pending') return transfer;
    if (Date.now() > deadline) throw new Error(`transfer ${txRef} is still pending after ${timeoutMs / 1000} s`);
    if (poll % 10 === 9) await target.reference?.mineBlock();
    await sleep(150);
  }
}

/**
 * Starts `post` while the reference stack holds the next transfer between its stored record and its broadcast;
 * resolves once the transfer waits there. Throws (after releasing the hold) if `post` ends without reaching it.
 */
export async function whileHeld<T>(
  target: Target,
  post: () => Promise<T>,
): Promise<{ posting: Promise<T>; release(): void }> {
  const hold = target.reference?.holdNextBroadcast?.();
  if (!hold) throw new Unavailable('the reference target offers no holdNextBroadcast()');
  const posting = post();
  const ended = posting.then(
    (value) => ({ ended: `answered ${JSON.stringify(value).slice(0, 200)}` }),
    (error: Error) => ({ ended: `failed: ${error.message}` }),
  );
  const first = await Promise.race([hold.reached.then(() => undefined), ended]);
  if (first) {
    hold.release();
    throw new Error(`the held request never reached the broadcast: it ${first.ended}`);
  }
  return { posting, release: hold.release };
}

/** Wei as units with two fraction digits, truncated toward zero (D-033), computed independently of the server. */
export function twoDecimals(wei: bigint): string {
  const text = wei.toString().padStart(19, '0');
  return `${text.slice(0, -18)}.${text.slice(-18, -16)}`;
}

/** A decimal amount string in wei (exact). */
export function weiOf(amount: string): bigint {
  const [whole, fraction = ''] = amount.split('.');
  return BigInt(whole!) * 10n ** 18n + BigInt(fraction.padEnd(18, '0'));
}

/** A syntactically valid account id that names no account (acc_ + 26 Crockford base32). */
export const unknownAccountId = () =>
  `acc_${Array.from(crypto.getRandomValues(new Uint8Array(26)), (b) => '0123456789ABCDEFGHJKMNPQRSTVWXYZ'[b & 31]).join('')}`;

/** A distinct small amount (0.01 to 0.99 units), so a check can recognise its own transfer in lists. */
export const smallAmount = () => `0.${String(1 + Math.floor(Math.random() * 99)).padStart(2, '0')}`;

export { sleep };
