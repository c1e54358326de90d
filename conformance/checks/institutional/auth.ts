// Surface A authentication (spec "Authentication", A) and the rate limit (spec "Limits"): the 401 matrix
// for missing, malformed, unknown, wrongly signed, mis-targeted and stale credentials, 403 for a missing
// permission (D-015), 404 for an account outside a restricted key as for an unknown one (D-128), both
// signed path forms (D-029), replay refusal (D-076), and 429 with
// {error} and Retry-After after more than 10 requests in one second from one IP (D-022 headers).
import { randomBytes, randomUUID } from 'node:crypto';
import { mldsaAuthorization } from '@svckit/sdk/signer';
import { mlDsa65, toHex } from '@svckit/sdk/crypto';
import type { Check, CheckContext } from '../../catalogue.ts';
import { PROBE_LIMIT, request, type HttpResult } from '../../http.ts';
import { verdict } from '../define.ts';
import { fileURLToPath } from 'node:url';
import { contractOf } from '../../engine/openapi/contract.ts';
import { judgeAnswer } from '../../engine/openapi/judge-answer.ts';
import { platformBicOf } from '../../targets/target.ts';
import {
  adminJson,
  codeOf,
  contractProblems,
  apiKey,
  defineCheck,
  fixture,
  inst,
  mldsaKey,
  newAccount,
  retryAfterMs,
  serverNow,
  sleep,
  wireTarget,
  WITH_ADMIN,
  type Credential,
  unknownAccountId,
  type Operation,
} from './support.ts';

/** Sends each case and collects a problem for every answer that is not `status` with the contract's body. */
async function expectAll(
  ctx: CheckContext,
  operation: Operation,
  status: number,
  cases: [string, () => Promise<HttpResult>][],
) {
  const problems: string[] = [];
  let last: HttpResult | undefined;
  for (const [what, send] of cases) {
    last = await send();
    problems.push(...(await contractProblems(ctx, operation, last, status, what)));
  }
  return verdict(problems, last);
}

/** The 401 and 403 matrix. */
function credentialChecks(): Check[] {
  return [
    defineCheck({
      id: 'institutional.auth.both_methods',
      title: 'A bearer svc_ key and a per-request SVC-MLDSA signature are each accepted',
      source: { quote: 'two methods, one of which must be used on every request' },
      needs: WITH_ADMIN,
      async run(ctx) {
        const f = await fixture(ctx.target);
        const path = `/accounts/${f.sender.id}`;
        return expectAll(ctx, 'GET /accounts/{id}', 200, [
          ['bearer', () => inst(ctx.target, 'GET', path, { bearer: f.full })],
          ['SVC-MLDSA', () => inst(ctx.target, 'GET', path, { mldsa: f.keys })],
        ]);
      },
    }),
    defineCheck({
      id: 'institutional.auth.missing_credentials',
      title: 'A request without credentials is refused with 401 and {error}, on every operation',
      source: { quote: 'missing or invalid credentials give 401' },
      needs: WITH_ADMIN,
      async run(ctx) {
        const f = await fixture(ctx.target);
        // Every secured operation of the contract (a new one is covered by itself), its path parameters naming
        // the fixture's own resources and its body the contract's example, judged by the generated checks
        // `ignored_auth` and `error_shape_conformance` (D-232).
        const contract = contractOf(fileURLToPath(ctx.specsDir), 'institutional');
        const ids: Record<string, string> = { id: f.sender.id, reference: f.first.txRef };
        const problems: string[] = [];
        let last: HttpResult | undefined;
        for (const op of contract.operations.filter((o) => o.security.length > 0)) {
          const path = op.route.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(ids[name] ?? name));
          const body = op.body?.examples[0];
          last = await inst(ctx.target, op.method, path, null, body === undefined ? {} : { body });
          for (const v of judgeAnswer(
            contract,
            op,
            last,
            ['ignored_auth', 'error_shape_conformance'],
            'unauthenticated',
          ))
            if (!v.ok) problems.push(`${op.id} (no Authorization header): ${v.check}: ${v.message ?? 'failed'}`);
        }
        return verdict(problems, last);
      },
    }),
    defineCheck({
      id: 'institutional.auth.malformed_header',
      title: 'Malformed Authorization headers (wrong scheme, bad token, truncated SVC-MLDSA parts) get 401',
      source: { quote: 'missing or invalid credentials give 401' },
      needs: WITH_ADMIN,
      async run(ctx) {
        const f = await fixture(ctx.target);
        const path = `/accounts/${f.sender.id}`;
        const pk = toHex(f.keys.publicKey);
        const sig = toHex(
          mlDsa65.sign(
            f.keys.secretKey,
            new TextEncoder().encode(`${serverNow(ctx.target)}:GET:${wireTarget(ctx.target, path)}`),
          ),
        );
        const headers = [
          'Bearer',
          'Bearer not-a-key',
          `Basic ${Buffer.from('user:pass').toString('base64')}`,
          `svc_${randomBytes(32).toString('base64url')}`,
          'SVC-MLDSA abc',
          `SVC-MLDSA ${pk}.${serverNow(ctx.target)}`,
          `SVC-MLDSA ${pk}.soon.${sig}`,
          `SVC-MLDSA ${pk.slice(2)}.${serverNow(ctx.target)}.${sig}`,
          `SVC-MLDSA ${pk}:${serverNow(ctx.target)}:${sig}`,
        ];
        return expectAll(
          ctx,
          'GET /accounts/{id}',
          401,
          headers.map((header) => [header.slice(0, 24), () => inst(ctx.target, 'GET', path, { header })]),
        );
      },
    }),
    defineCheck({
      id: 'institutional.auth.unknown_key',
      title: 'An unknown or revoked svc_ key and an unregistered ML-DSA-65 public key get 401',
      source: { quote: 'missing or invalid credentials give 401' },
      needs: WITH_ADMIN,
      async run(ctx) {
        const f = await fixture(ctx.target);
        const path = `/accounts/${f.sender.id}`;
        const revoked = await adminJson<{ id: string; token: string }>(
          ctx.target,
          'POST',
          '/api-keys',
          { name: 'revoked', permissions: ['accounts:read'] },
          201,
        );
        await adminJson(ctx.target, 'DELETE', `/api-keys/${revoked.id}`, undefined, 204);
        return expectAll(ctx, 'GET /accounts/{id}', 401, [
          [
            'unknown svc_ key',
            () => inst(ctx.target, 'GET', path, { bearer: `svc_${randomBytes(32).toString('base64url')}` }),
          ],
          ['revoked svc_ key', () => inst(ctx.target, 'GET', path, { bearer: revoked.token })],
          ['unregistered ML-DSA key', () => inst(ctx.target, 'GET', path, { mldsa: mlDsa65.keygen() })],
        ]);
      },
    }),
    defineCheck({
      id: 'institutional.auth.wrong_signature',
      title: 'An SVC-MLDSA signature by another key, or with a flipped bit, gets 401',
      source: { quote: 'missing or invalid credentials give 401' },
      needs: WITH_ADMIN,
      async run(ctx) {
        const f = await fixture(ctx.target);
        const path = `/accounts/${f.sender.id}`;
        const other = mlDsa65.keygen();
        const forged = () => {
          const genuine = mldsaAuthorization(
            { publicKey: f.keys.publicKey, secretKey: other.secretKey },
            'GET',
            wireTarget(ctx.target, path),
            serverNow(ctx.target),
          );
          return genuine;
        };
        const flipped = () => {
          const header = mldsaAuthorization(f.keys, 'GET', wireTarget(ctx.target, path), serverNow(ctx.target));
          const at = header.length - 10;
          return `${header.slice(0, at)}${header[at] === '0' ? '1' : '0'}${header.slice(at + 1)}`;
        };
        return expectAll(ctx, 'GET /accounts/{id}', 401, [
          ['signed by another key', () => inst(ctx.target, 'GET', path, { header: forged() })],
          ['one bit flipped', () => inst(ctx.target, 'GET', path, { header: flipped() })],
        ]);
      },
    }),
    defineCheck({
      id: 'institutional.auth.wrong_method_or_path',
      title: 'A signature over another method, another path or the path without its query gets 401',
      source: { quote: 'The signed message is the UTF-8 string <timestamp_ms>:<METHOD>:<request_path>' },
      needs: WITH_ADMIN,
      async run(ctx) {
        const f = await fixture(ctx.target);
        const path = `/accounts/${f.sender.id}/statement?page=1&limit=5`;
        const sign = (credential: Partial<Extract<Credential, { mldsa: unknown }>>): Credential => ({
          mldsa: f.keys,
          ...credential,
        });
        return expectAll(ctx, 'GET /accounts/{id}/statement', 401, [
          ['POST signed, GET sent', () => inst(ctx.target, 'GET', path, sign({ signMethod: 'POST' }))],
          [
            'another account signed',
            () =>
              inst(ctx.target, 'GET', path, sign({ signTarget: (wire) => wire.replace(f.sender.id, f.recipient.id) })),
          ],
          ['query left out', () => inst(ctx.target, 'GET', path, sign({ signTarget: (wire) => wire.split('?')[0]! }))],
          [
            'other query signed',
            () => inst(ctx.target, 'GET', path, sign({ signTarget: (wire) => wire.replace('limit=5', 'limit=50') })),
          ],
        ]);
      },
    }),
    defineCheck({
      id: 'institutional.auth.timestamp_skew',
      title: 'SVC-MLDSA timestamps 31 s ahead or behind get 401; 29 s ahead or behind are accepted',
      source: { quote: 'The timestamp must be within plus or minus 30 seconds of server time.' },
      needs: WITH_ADMIN,
      async run(ctx) {
        const f = await fixture(ctx.target);
        const path = `/accounts/${f.sender.id}`;
        const problems: string[] = [];
        let last: HttpResult | undefined;
        for (const [skewMs, status] of [
          [31_000, 401],
          [-31_000, 401],
          [29_000, 200],
          [-29_000, 200],
        ] as const) {
          last = await inst(ctx.target, 'GET', path, { mldsa: f.keys, skewMs });
          problems.push(
            ...(await contractProblems(
              ctx,
              'GET /accounts/{id}',
              last,
              status,
              `timestamp ${skewMs > 0 ? '+' : ''}${skewMs / 1000} s`,
            )),
          );
        }
        return verdict(problems, last);
      },
    }),
    defineCheck({
      id: 'institutional.auth.missing_permission',
      title:
        'A bearer or ML-DSA key without the operation permission gets 403 (accounts:read, transfers:read, transfers:write, bank:connect)',
      source: { quote: 'a key without permission for the operation gives 403' },
      needs: WITH_ADMIN,
      async run(ctx) {
        const f = await fixture(ctx.target);
        const readerKeys = await mldsaKey(ctx.target, ['accounts:read']);
        const problems: string[] = [];
        let last: HttpResult | undefined;
        const cases: [Operation, string, string, Credential, unknown?][] = [
          ['GET /accounts/{id}', 'GET', `/accounts/${f.sender.id}`, { bearer: f.transfersOnly }],
          ['GET /accounts/{id}/statement', 'GET', `/accounts/${f.sender.id}/statement`, { bearer: f.transfersOnly }],
          ['GET /transfers', 'GET', '/transfers', { bearer: f.readOnly }],
          ['GET /transfers/{reference}', 'GET', `/transfers/${f.first.txRef}`, { mldsa: readerKeys }],
          [
            'POST /transfers',
            'POST',
            '/transfers',
            { bearer: f.readOnly },
            { fromAccountId: f.sender.id, to: f.recipient.address, amount: '0.01' },
          ],
          [
            'POST /transfers',
            'POST',
            '/transfers',
            { mldsa: readerKeys },
            { fromAccountId: f.sender.id, to: f.recipient.address, amount: '0.01' },
          ],
          [
            'POST /bank/connect',
            'POST',
            '/bank/connect',
            { bearer: f.readOnly },
            { institutionBIC: 'DEUTDEFFXXX', accountId: f.sender.id },
          ],
        ];
        for (const [operation, method, path, credential, body] of cases) {
          last = await inst(ctx.target, method, path, credential, body === undefined ? {} : { body });
          problems.push(
            ...(await contractProblems(
              ctx,
              operation,
              last,
              403,
              `${'bearer' in credential! ? 'bearer' : 'ML-DSA'} key`,
            )),
          );
        }
        return verdict(problems, last);
      },
    }),
    defineCheck({
      id: 'institutional.auth.account_not_permitted',
      title:
        'A key limited to some accounts gets 404 for any other account, as for an unknown one, on every operation that names one',
      source: { decision: 'D-128' },
      needs: WITH_ADMIN,
      async run(ctx) {
        const f = await fixture(ctx.target);
        const problems: string[] = [];
        let last: HttpResult | undefined;
        const key = { bearer: f.scoped };
        const unknown = unknownAccountId();
        // Each case names the outsider, then an account that does not exist: the answers must not differ.
        const cases: [Operation, string, (id: string) => string, ((id: string) => unknown)?][] = [
          ['GET /accounts/{id}', 'GET', (id) => `/accounts/${id}`],
          ['GET /accounts/{id}/statement', 'GET', (id) => `/accounts/${id}/statement`],
          ['GET /transfers', 'GET', (id) => `/transfers?accountId=${id}`],
          [
            'POST /transfers',
            'POST',
            () => '/transfers',
            (id) => ({ fromAccountId: id, to: f.recipient.address, amount: '0.01' }),
          ],
          [
            'POST /bank/connect',
            'POST',
            () => '/bank/connect',
            (id) => ({ institutionBIC: 'DEUTDEFFXXX', accountId: id }),
          ],
        ];
        const answer = async (method: string, path: string, body: unknown) => {
          last = await inst(ctx.target, method, path, key, body === undefined ? {} : { body });
          return last;
        };
        for (const [operation, method, path, body] of cases) {
          const outside = await answer(method, path(f.outsider.id), body?.(f.outsider.id));
          problems.push(
            ...(await contractProblems(
              ctx,
              operation,
              outside,
              404,
              `${method} ${path(f.outsider.id).split('?')[0]} for ${f.outsider.id}`,
            )),
          );
          const missing = await answer(method, path(unknown), body?.(unknown));
          const shape = (res: HttpResult, id: string) =>
            `${res.status} ${String(codeOf(res))} ${res.text.replaceAll(id, '<id>')}`;
          if (shape(outside, f.outsider.id) !== shape(missing, unknown)) {
            problems.push(
              `${operation}: an account outside the key (${shape(outside, f.outsider.id)}) is answered unlike an unknown one (${shape(missing, unknown)})`,
            );
          }
        }
        // A transfer between accounts outside the key reads as an unknown reference.
        const stranger = await newAccount(ctx.target, { fund: '1.00' });
        const theirs = await inst(
          ctx.target,
          'POST',
          '/transfers',
          { bearer: f.full },
          { body: { fromAccountId: stranger.id, to: f.outsider.address, amount: '0.01' } },
        );
        if (theirs.status !== 201)
          return verdict(
            [`setup: POST /transfers for a transfer outside the key answered HTTP ${theirs.status}`],
            theirs,
          );
        const txRef = (theirs.json as { txRef: string }).txRef;
        const otherRef = `${txRef.slice(0, -8)}${txRef.endsWith('ZZZZZZZZ') ? 'YYYYYYYY' : 'ZZZZZZZZ'}`;
        const transferOutside = await answer('GET', `/transfers/${txRef}`, undefined);
        problems.push(
          ...(await contractProblems(
            ctx,
            'GET /transfers/{reference}',
            transferOutside,
            404,
            `GET /transfers/{reference} for a transfer of ${stranger.id}`,
          )),
        );
        const transferMissing = await answer('GET', `/transfers/${otherRef}`, undefined);
        const refShape = (res: HttpResult, ref: string) =>
          `${res.status} ${String(codeOf(res))} ${res.text.replaceAll(ref, '<ref>')}`;
        if (refShape(transferOutside, txRef) !== refShape(transferMissing, otherRef)) {
          problems.push(
            `GET /transfers/{reference}: a transfer outside the key (${refShape(transferOutside, txRef)}) is answered unlike an unknown one (${refShape(transferMissing, otherRef)})`,
          );
        }
        if (transferOutside.text.includes(stranger.id))
          problems.push(`GET /transfers/${txRef} names the sending account: ${transferOutside.text}`);
        // pacs.008: a settlement account outside a key that may submit payments.
        const payer = await apiKey(ctx.target, ['payments:write'], [f.sender.id]);
        const payment = (sttlmAcct: string) => ({
          msgId: `CONF${Date.now()}`,
          sttlmAcct,
          endToEndId: 'E2E-OUTSIDER',
          uetr: randomUUID(),
          intrBkSttlmAmt: '0.01',
          intrBkSttlmCcy: 'EUR',
          chrgBr: 'SHAR',
          dbtrNm: 'Conformance Debtor GmbH',
          dbtrAgt: 'DEUTDEFFXXX',
          cdtrNm: 'Conformance Creditor Ltd',
          cdtrAcct: f.recipient.id,
          cdtrAgt: platformBicOf(ctx.target),
          rmtInf: 'svckit conformance',
        });
        const pay = async (id: string) =>
          (last = await inst(ctx.target, 'POST', '/payments/pacs008', { bearer: payer }, { body: payment(id) }));
        const payOutside = await pay(f.outsider.id);
        problems.push(
          ...(await contractProblems(
            ctx,
            'POST /payments/pacs008',
            payOutside,
            404,
            `POST /payments/pacs008 with sttlmAcct ${f.outsider.id}`,
          )),
        );
        const payMissing = await pay(unknown);
        const shape = (res: HttpResult, id: string) =>
          `${res.status} ${String(codeOf(res))} ${res.text.replaceAll(id, '<id>')}`;
        if (shape(payOutside, f.outsider.id) !== shape(payMissing, unknown)) {
          problems.push(
            `POST /payments/pacs008: a settlement account outside the key (${shape(payOutside, f.outsider.id)}) is answered unlike an unknown one (${shape(payMissing, unknown)})`,
          );
        }
        // By reference: the answer must not name the account id the reference resolves to.
        const byReference = await answer('GET', `/accounts/${f.outsider.reference}`, undefined);
        problems.push(
          ...(await contractProblems(
            ctx,
            'GET /accounts/{id}',
            byReference,
            404,
            `GET /accounts/${f.outsider.reference}`,
          )),
        );
        if (byReference.text.includes(f.outsider.id))
          problems.push(`GET /accounts/${f.outsider.reference} names the account it resolves to: ${byReference.text}`);
        return verdict(problems, last);
      },
    }),
    defineCheck({
      id: 'institutional.auth.path_forms',
      title: 'SVC-MLDSA accepts the request target as sent and the same without the leading /wallet, query included',
      source: { decision: 'D-029' },
      needs: WITH_ADMIN,
      async run(ctx) {
        const f = await fixture(ctx.target);
        const path = `/accounts/${f.sender.id}/statement?page=1&limit=5`;
        return expectAll(ctx, 'GET /accounts/{id}/statement', 200, [
          ['full form /wallet/api/v1/…', () => inst(ctx.target, 'GET', path, { mldsa: f.keys })],
          [
            'reference example form /api/v1/…',
            () =>
              inst(ctx.target, 'GET', path, {
                mldsa: f.keys,
                signTarget: (wire) => wire.replace('/wallet/api/v1/', '/api/v1/'),
              }),
          ],
        ]);
      },
    }),
    defineCheck({
      id: 'institutional.auth.replay',
      title: 'An SVC-MLDSA header accepted once is refused with 401 when sent again',
      source: { decision: 'D-076' },
      needs: WITH_ADMIN,
      async run(ctx) {
        const f = await fixture(ctx.target);
        const path = `/accounts/${f.sender.id}`;
        const header = mldsaAuthorization(f.keys, 'GET', wireTarget(ctx.target, path), serverNow(ctx.target));
        return verdict([
          ...(await contractProblems(
            ctx,
            'GET /accounts/{id}',
            await inst(ctx.target, 'GET', path, { header }),
            200,
            'first use',
          )),
          ...(await contractProblems(
            ctx,
            'GET /accounts/{id}',
            await inst(ctx.target, 'GET', path, { header }),
            401,
            'the same header again',
          )),
          ...(await contractProblems(
            ctx,
            'GET /accounts/{id}/statement',
            await inst(ctx.target, 'GET', `${path}/statement`, { header }),
            401,
            'the same header on another path',
          )),
        ]);
      },
    }),
  ];
}

/**
 * Waits until a fresh rate-limit window, then sends `count` requests as fast as one connection each allows. A burst
 * slower than 900 ms (a loaded client: each request is a new hybrid TLS handshake) is sent again in a new window,
 * at most 3 times, so that the check measures the limit and not the client's speed (D-180).
 */
async function burst(ctx: CheckContext, path: string, bearer: string, count: number) {
  for (let attempt = 1; ; attempt++) {
    await sleep(1_100);
    const started = performance.now();
    const answers = await Promise.all(
      Array.from({ length: count }, () =>
        request(ctx.target, `wallet/api/v1${path}`, { headers: { authorization: `Bearer ${bearer}` }, ...PROBE_LIMIT }),
      ),
    );
    const elapsedMs = performance.now() - started;
    if (elapsedMs <= BURST_MS || attempt === 3) return { answers, elapsedMs };
  }
}

/** The longest a burst may take to test a per-second limit. */
const BURST_MS = 900;

/** The per-IP rate limit. */
function rateLimitChecks(): Check[] {
  return [
    defineCheck({
      id: 'institutional.rate_limit.exceeded',
      title: 'More than 10 requests in one second from one IP get 429 with {error} and Retry-After, on every operation',
      source: { quote: 'rate limit exceeded (10 requests per second per IP)' },
      needs: WITH_ADMIN,
      async run(ctx) {
        const f = await fixture(ctx.target);
        const path = `/accounts/${f.sender.id}`;
        const problems: string[] = [];
        const { answers, elapsedMs } = await burst(ctx, path, f.full, 14);
        const limited = answers.filter((r) => r.status === 429);
        if (elapsedMs > BURST_MS)
          return {
            status: 'failed',
            reason: `14 requests took ${Math.round(elapsedMs)} ms in each of 3 tries, too slow to test a per-second limit`,
          };
        if (limited.length === 0)
          return verdict(
            [
              `14 requests within ${Math.round(elapsedMs)} ms: none answered 429 (statuses ${answers.map((r) => r.status).join(' ')})`,
            ],
            answers.at(-1),
          );
        if (answers.filter((r) => r.status === 200).length < 10)
          problems.push(
            `within the first second only ${answers.filter((r) => r.status === 200).length} of 14 requests were served; 10 are allowed`,
          );
        for (const r of limited) {
          problems.push(...(await contractProblems(ctx, 'GET /accounts/{id}', r, 429, 'over the limit')));
          if (!/^\d+$/.test(r.headers['retry-after'] ?? ''))
            problems.push(`429 without a Retry-After in seconds (got ${JSON.stringify(r.headers['retry-after'])})`);
        }
        // While the window lasts, every operation is limited (spec: "Request rate ... institutional REST API").
        const others: [Operation, string, string, unknown?][] = [
          ['GET /accounts', 'GET', '/accounts'],
          ['GET /accounts/{id}/statement', 'GET', `${path}/statement`],
          ['GET /transfers', 'GET', '/transfers'],
          [
            'POST /transfers',
            'POST',
            '/transfers',
            { fromAccountId: f.sender.id, to: f.recipient.address, amount: '0.01' },
          ],
          ['GET /transfers/{reference}', 'GET', `/transfers/${f.first.txRef}`],
          ['POST /bank/connect', 'POST', '/bank/connect', { institutionBIC: 'DEUTDEFFXXX', accountId: f.sender.id }],
        ];
        const windowEnds = performance.now() + 1_000 - elapsedMs - 150;
        for (const [operation, method, target, body] of others) {
          if (performance.now() > windowEnds) break;
          const res = await request(ctx.target, `wallet/api/v1${target}`, {
            method,
            headers: { authorization: `Bearer ${f.full}` },
            ...(body ? { body } : {}),
            ...PROBE_LIMIT,
          });
          if (res.status !== 429 && performance.now() < windowEnds)
            problems.push(`${operation} inside the exceeded window answered ${res.status}, expected 429`);
          else if (res.status === 429)
            problems.push(...(await contractProblems(ctx, operation, res, 429, 'over the limit')));
        }
        await sleep(retryAfterMs(limited[0]!));
        return verdict(problems, limited[0]);
      },
    }),
    defineCheck({
      id: 'institutional.rate_limit.headers',
      title:
        'A 429 carries Retry-After (seconds) and x-ratelimit-limit 10, x-ratelimit-remaining 0 and x-ratelimit-reset',
      source: { decision: 'D-022' },
      needs: WITH_ADMIN,
      async run(ctx) {
        const f = await fixture(ctx.target);
        const { answers } = await burst(ctx, `/accounts/${f.sender.id}`, f.full, 13);
        const limited = answers.find((r) => r.status === 429);
        if (!limited)
          return verdict([
            `13 requests in a burst: none answered 429 (statuses ${answers.map((r) => r.status).join(' ')})`,
          ]);
        const h = limited.headers;
        const problems: string[] = [];
        if (!/^\d+$/.test(h['retry-after'] ?? ''))
          problems.push(`Retry-After expected whole seconds, got ${JSON.stringify(h['retry-after'])}`);
        if (h['x-ratelimit-limit'] !== '10')
          problems.push(`x-ratelimit-limit expected 10, got ${JSON.stringify(h['x-ratelimit-limit'])}`);
        if (h['x-ratelimit-remaining'] !== '0')
          problems.push(`x-ratelimit-remaining expected 0, got ${JSON.stringify(h['x-ratelimit-remaining'])}`);
        if (!/^\d+$/.test(h['x-ratelimit-reset'] ?? ''))
          problems.push(`x-ratelimit-reset expected whole seconds, got ${JSON.stringify(h['x-ratelimit-reset'])}`);
        await sleep(retryAfterMs(limited));
        return verdict(problems, limited);
      },
    }),
  ];
}

/** Every `institutional.auth.*` and `institutional.rate_limit.*` check. */
export function institutionalAuthChecks(): Check[] {
  return [...credentialChecks(), ...rateLimitChecks()];
}
