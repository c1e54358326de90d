// Shared helpers of the admin console tests: calls over real HTTPS to the in-process reference stack and
// validation of every answer against the response schema the contract declares for its status.
import { readFile } from 'node:fs/promises';
import { expect } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { deref, isObject } from '../../conformance/checks/spec-examples/pointer.ts';
import { DocumentValidator } from '../../conformance/checks/spec-examples/validator.ts';
import { type HttpResult, request } from '../../conformance/http.ts';
import { DEFAULT_MAX_WAIT_MS, retryDelayMs } from '../../conformance/pacing.ts';
import type { Target } from '../../conformance/targets/target.ts';
import { mlDsa65, toHex, type MlDsa65KeyPair } from '../../src/crypto/index.ts';

type Contract = { doc: Record<string, unknown>; validator: DocumentValidator };
const contracts = new Map<string, Promise<Contract>>();

function contract(name: 'admin.openapi.yaml' | 'institutional.openapi.yaml'): Promise<Contract> {
  let loaded = contracts.get(name);
  if (!loaded) {
    loaded = readFile(new URL(`../../specs/${name}`, import.meta.url), 'utf8').then((text) => {
      const doc = parseYaml(text) as Record<string, unknown>;
      return { doc, validator: new DocumentValidator(doc, '2020-12', name) };
    });
    contracts.set(name, loaded);
  }
  return loaded;
}

/**
 * Asserts that `res` has `status`, that the contract declares that status for the operation, and that the
 * body satisfies the declared schema (or is empty when none is declared, as for 204).
 */
export async function expectContract(
  name: 'admin.openapi.yaml' | 'institutional.openapi.yaml',
  operation: string,
  res: HttpResult,
  status: number,
): Promise<void> {
  const [method, route] = operation.split(' ') as [string, string];
  expect(res.status, `${operation}: ${res.text.slice(0, 400)}`).toBe(status);
  const { doc, validator } = await contract(name);
  const responses = getOperation(doc, route, method.toLowerCase());
  expect(Object.keys(responses), `${operation}: statuses the contract declares`).toContain(String(status));
  const { node, at } = deref(doc, ['paths', route, method.toLowerCase(), 'responses', String(status)]);
  if (!isObject(node) || !isObject(node.content)) {
    expect(res.text, `${operation}: ${status} has no body in the contract`).toBe('');
    return;
  }
  expect(res.headers['content-type']).toMatch(/^application\/json\b/);
  expect(
    validator.validate({
      where: operation,
      value: res.json,
      schemaAt: [...at, 'content', 'application/json', 'schema'],
    }),
  ).toEqual([]);
}

function getOperation(doc: Record<string, unknown>, route: string, method: string): Record<string, unknown> {
  const path = (doc.paths as Record<string, Record<string, { responses: Record<string, unknown> }>>)[route];
  const operation = path?.[method];
  if (!operation) throw new Error(`the contract has no operation ${method.toUpperCase()} ${route}`);
  return operation.responses;
}

/** A call to `{base}/admin/v1<path>` with the administrator token, or `authorization` (null: none). */
export function admin(
  target: Target,
  method: string,
  path: string,
  body?: unknown,
  authorization?: string | null,
): Promise<HttpResult> {
  const header = authorization === undefined ? `Bearer ${target.adminToken!}` : authorization;
  return waitingOutRateLimits(() =>
    request(target, `admin/v1${path}`, {
      method,
      headers: header === null ? {} : { authorization: header },
      ...(body !== undefined ? { body } : {}),
    }),
  );
}

/** Resends of one call after a rate-limit answer, at most (each waits its Retry-After, at most 30 s). */
const RATE_LIMIT_RESENDS = 8;

/**
 * Sends `send()` again after a per-IP rate-limit answer (429 RATE_LIMITED, D-024/D-058), once its Retry-After
 * has passed, at most RATE_LIMIT_RESENDS times: these helpers are not about the limits (test/ratelimits is),
 * and a loaded machine may bunch a test's requests into one second. Other 429s are answers.
 */
async function waitingOutRateLimits(send: () => Promise<HttpResult>): Promise<HttpResult> {
  for (let attempt = 0; ; attempt++) {
    const res = await send();
    const code = (res.json as { code?: unknown } | undefined)?.code;
    if (res.status !== 429 || code !== 'RATE_LIMITED' || attempt >= RATE_LIMIT_RESENDS) return res;
    await new Promise((resolve) => setTimeout(resolve, retryDelayMs(res.headers, attempt, DEFAULT_MAX_WAIT_MS)));
  }
}

/** A call to `{base}/wallet/api/v1<path>` with a bearer API key. */
export function wallet(
  target: Target,
  method: string,
  path: string,
  token: string,
  body?: unknown,
): Promise<HttpResult> {
  return waitingOutRateLimits(() =>
    request(target, `wallet/api/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${token}` },
      ...(body !== undefined ? { body } : {}),
    }),
  );
}

/** spec: `Authorization: SVC-MLDSA <pubkey_hex>.<timestamp_ms>.<sig_hex>` over `<timestamp_ms>:<METHOD>:<request_path>`. */
export function mldsaHeader(keys: MlDsa65KeyPair, method: string, path: string, timestamp = Date.now()): string {
  const signature = mlDsa65.sign(keys.secretKey, new TextEncoder().encode(`${timestamp}:${method}:${path}`));
  return `SVC-MLDSA ${toHex(keys.publicKey)}.${timestamp}.${toHex(signature)}`;
}

/** Polls `probe` until it returns a value (not undefined), at most `timeoutMs`. */
export async function eventually<T>(probe: () => Promise<T | undefined>, timeoutMs = 20_000, everyMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/** An account creation body with the given limits. */
export const accountBody = (email: string, extra: Record<string, unknown> = {}) => ({
  email,
  dailyLimit: 50000,
  singleLimit: 10000,
  ...extra,
});
