import { afterAll, beforeAll, expect, it } from 'vitest';
import { referenceTarget } from '../../conformance/targets/reference.ts';
import type { Target } from '../../conformance/targets/target.ts';
import { deliveriesOf, pacs008, parseBody, registerEndpoint, schemaProblems, signatureProblems, targetNow, transfer } from '../../conformance/checks/webhook-support.ts';

let target: Target;
beforeAll(async () => {
  target = await referenceTarget();
});
afterAll(async () => {
  await target?.close?.();
});

it('smoke', async () => {
  const endpoint = await registerEndpoint(target);
  const t0 = Date.now();
  const created = await transfer(target, '1.25');
  const got = await deliveriesOf(endpoint, () => true, (r) => r.length >= 2);
  console.log('transfer', Date.now() - t0, got.map((r) => [r.headers['x-svc-event'], r.rawBody]));
  for (const r of got) {
    expect(schemaProblems(r)).toEqual([]);
    expect(signatureProblems(r, [endpoint.secret], targetNow(target))).toEqual([]);
  }
  const p = await pacs008(target, '1250.50', 'EUR');
  const got2 = await deliveriesOf(endpoint, (b) => b.uetr === p.uetr, (r) => r.length >= 3);
  console.log('pacs', got2.map((r) => [r.headers['x-svc-event'], r.rawBody]));
  for (const r of got2) expect(schemaProblems(r)).toEqual([]);
  void created; void parseBody;
});
