// D-025: the contracts state the bounds of `page` that the server enforces, so a client generated from them
// sends nothing the server refuses: the contract's maximum is accepted (an empty page past the end) and one
// more is a 400, on surface A and on the admin console.
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import {
  adminCall,
  apiKey,
  inst,
  newAccount,
  type AccountView,
} from '../../conformance/checks/institutional/support.ts';
import { sharedReferenceTarget } from '../support/shared-stack.ts';
import type { Target } from '../../conformance/targets/target.ts';

/** The `page` parameter's maximum in a contract. */
const pageMaximum = (file: string) =>
  (
    parse(readFileSync(`specs/${file}`, 'utf8')) as {
      components: { parameters: { Page: { schema: { maximum?: number } } } };
    }
  ).components.parameters.Page.schema.maximum;

let target: Target;
let account: AccountView;
let key: string;
beforeAll(async () => {
  target = await sharedReferenceTarget();
  account = await newAccount(target);
  key = await apiKey(target, ['accounts:read', 'transfers:read']);
});

describe('page bounds (D-025)', () => {
  it('surface A: the contract maximum is an empty page, one more is 400', async () => {
    const max = pageMaximum('institutional.openapi.yaml');
    expect(max).toBeTypeOf('number');
    for (const path of [`/accounts/${account.id}/statement`, '/transfers']) {
      const atMax = await inst(target, 'GET', `${path}?page=${max}`, { bearer: key });
      expect(atMax.status, atMax.text).toBe(200);
      expect(atMax.json).toMatchObject({ page: max });
      const over = await inst(target, 'GET', `${path}?page=${max! + 1}`, { bearer: key });
      expect(over.status, over.text).toBe(400);
      expect((over.json as { error: string }).error).toContain(String(max));
    }
  });

  it('admin console: the contract maximum is an empty page, one more is 400', async () => {
    const max = pageMaximum('admin.openapi.yaml');
    expect(max).toBeTypeOf('number');
    const atMax = await adminCall(target, 'GET', `/accounts?page=${max}`);
    expect(atMax.status, atMax.text).toBe(200);
    const over = await adminCall(target, 'GET', `/accounts?page=${max! + 1}`);
    expect(over.status, over.text).toBe(400);
  });
});
