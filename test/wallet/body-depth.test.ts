// D-144: every origin refuses a JSON body nested deeper than 64 levels with a 400 in its own error shape
// (REST `{error, code}`, JSON-RPC an error object), before any walk over the body, and keeps answering.
// About 400 KB of `[` or `{"a":` nesting used to overflow the stack of the wallet origin's private-material
// walk and answer 500.
import { beforeAll, describe, expect, it } from 'vitest';
import { request, type HttpResult } from '../../conformance/http.ts';
import { sharedReferenceTarget } from '../support/shared-stack.ts';
import type { Target } from '../../conformance/targets/target.ts';
import { RestError } from '../../src/server/http/errors.ts';
import { jsonDepth, MAX_JSON_DEPTH } from '../../src/server/http/body-depth.ts';
import { refusePrivateMaterial } from '../../src/server/wallet/private-material.ts';

const nestedArrays = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
const nestedObjects = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
/** About 400 KB each: the bodies that overflowed the stack. */
const HUGE = [nestedArrays(200_000), nestedObjects(80_000)];
/** Valid JSON one level over the limit, and exactly at it. */
const overLimit = (inner: (depth: number) => string) => `{"svcId":${inner(MAX_JSON_DEPTH)}}`;
const atLimit = (inner: (depth: number) => string) => `{"svcId":${inner(MAX_JSON_DEPTH - 1)}}`;

let target: Target;
beforeAll(async () => {
  target = await sharedReferenceTarget();
});

const post = (url: string | URL, body: string) =>
  request(target, url, { method: 'POST', body, headers: { 'content-type': 'application/json' } });
const expectRestTooDeep = (answer: HttpResult) => {
  expect(answer.status, answer.text.slice(0, 200)).toBe(400);
  expect(answer.json).toMatchObject({
    code: 'BODY_TOO_DEEP',
    error: expect.stringContaining(`deeper than ${MAX_JSON_DEPTH}`),
  });
};

describe('the JSON depth scan', () => {
  it('counts nesting outside strings only, and stops at the first level over the limit', () => {
    expect(jsonDepth('{"a":[1,{"b":"[[[{{{"}]}')).toBe(3);
    expect(jsonDepth('{"a":"\\"[[[["}')).toBe(1);
    expect(jsonDepth(nestedArrays(10))).toBe(10);
    expect(jsonDepth(nestedArrays(200_000))).toBe(MAX_JSON_DEPTH + 1);
  });

  it('the private-material walk refuses a deep value with a 400, never a stack overflow', () => {
    const deep = JSON.parse(nestedArrays(200_000)) as unknown;
    expect(() => refusePrivateMaterial(deep)).toThrow(RestError);
    expect(() => refusePrivateMaterial(JSON.parse(atLimit(nestedArrays)))).not.toThrow();
  });
});

describe('every origin', () => {
  const restRoutes = () => [
    new URL('wallets/register', target.wallet),
    new URL('auth/challenge', target.wallet),
    new URL('wallet/api/v1/transfers', target.base),
    new URL('admin/v1/accounts', target.base),
  ];

  it('REST surfaces (wallet origin, /wallet/api/v1, /admin/v1) answer 400 {error, code} for ~400 KB of nesting and for one level over the limit', async () => {
    for (const url of restRoutes()) {
      for (const body of [...HUGE, overLimit(nestedArrays), overLimit(nestedObjects)])
        expectRestTooDeep(await post(url, body));
      // At the limit the body is parsed and reaches the surface's own checks: not the depth refusal, not a 500.
      const atLimitAnswer = await post(url, atLimit(nestedObjects));
      expect(atLimitAnswer.status, `${url.pathname}: ${atLimitAnswer.text.slice(0, 200)}`).toBeGreaterThanOrEqual(400);
      expect(atLimitAnswer.status).toBeLessThan(500);
      expect(atLimitAnswer.json).not.toMatchObject({ code: 'BODY_TOO_DEEP' });
    }
    expect((await request(target, new URL('.well-known/jwks.json', target.wallet))).status).toBe(200);
    expect(
      (await request(target, 'admin/v1/health', { headers: { authorization: `Bearer ${target.adminToken}` } })).status,
    ).toBe(200);
  });

  it('/rpc answers a JSON-RPC -32600 error object inside HTTP 400, then still serves eth_chainId', async () => {
    for (const body of [
      ...HUGE,
      nestedArrays(MAX_JSON_DEPTH + 1),
      `{"jsonrpc":"2.0","id":1,"method":"eth_call","params":${nestedArrays(MAX_JSON_DEPTH)}}`,
    ]) {
      const answer = await post('rpc', body);
      expect(answer.status, answer.text.slice(0, 200)).toBe(400);
      expect(answer.json).toMatchObject({
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600, message: 'Invalid Request', data: expect.stringContaining('deeper than') },
      });
    }
    const after = await request(target, 'rpc', { body: { jsonrpc: '2.0', id: 7, method: 'eth_chainId', params: [] } });
    expect(after.json).toEqual({ jsonrpc: '2.0', id: 7, result: '0x10f447' });
  });

  it('/api and the site origin (GET only) refuse deep POST bodies with 400 {error, code} and keep serving their GETs', async () => {
    for (const url of [
      new URL('api/governance', target.base),
      new URL('downloads/svckit-wallet-extension.pub', target.site),
    ]) {
      // Fastify parses the body before its not-found handler answers, so the guard is what answers here.
      for (const body of [...HUGE, overLimit(nestedObjects)]) expectRestTooDeep(await post(url, body));
      expect((await post(url, atLimit(nestedObjects))).json).toMatchObject({ code: 'NOT_FOUND' });
      expect((await request(target, url)).status).toBe(200);
    }
  });
});
