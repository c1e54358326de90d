// D-244: wallet.cross_tenant_access passes on the reference, which answers another identity's binding or device
// as an unknown one; it fails on a stand-in wallet origin that refuses a binding which exists with 403 (an
// existence leak), and on one that shows the binding to any identity.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { walletCrossTenantChecks } from '../../conformance/checks/wallet/cross-tenant.ts';
import type { CheckResult } from '../../conformance/runner.ts';
import type { Target } from '../../conformance/targets/target.ts';
import { runGroup } from '../institutional/support.ts';
import { sharedReferenceTarget } from '../support/shared-stack.ts';
import { type Answer, startStandIn } from '../support/stand-in.ts';

const BINDING = /^bindings\/([0-9a-f-]{36})(\/activity)?$/;
/** Binding ids the stand-ins have seen created (the reference's answers to POST /bindings). */
const created = new Set<string>();

let reference: Target;
let leaking: Awaited<ReturnType<typeof startStandIn>>;
let open: Awaited<ReturnType<typeof startStandIn>>;

/** Remembers the binding ids the reference hands out, so a stand-in knows which ids exist. */
const remember = (path: string, answer: Answer): Answer => {
  const id = path === 'bindings' ? (JSON.parse(answer.text || '{}') as { id?: string }).id : undefined;
  if (id) created.add(id);
  return answer;
};

beforeAll(async () => {
  reference = await sharedReferenceTarget();
  leaking = await startStandIn(
    reference,
    async (path, forward) => {
      const answer = remember(path, await forward());
      const id = BINDING.exec(path)?.[1];
      if (!id || answer.status !== 404 || !created.has(id)) return answer;
      return { ...answer, status: 403, text: JSON.stringify({ error: 'not your binding', code: 'NOT_BINDING_OWNER' }) };
    },
    { origin: 'wallet' },
  );
  open = await startStandIn(
    reference,
    async (path, forward) => {
      const answer = remember(path, await forward());
      const id = BINDING.exec(path)?.[1];
      if (!id || answer.status !== 404 || !created.has(id)) return answer;
      return {
        status: 200,
        headers: { 'content-type': 'application/json' },
        text: JSON.stringify({ id, status: 'active' }),
      };
    },
    { origin: 'wallet' },
  );
});
afterAll(async () => {
  await Promise.all([leaking?.close(), open?.close()]);
});

const run = async (target: Target): Promise<CheckResult> => (await runGroup(target, walletCrossTenantChecks()))[0]!;

describe('wallet.cross_tenant_access', { timeout: 180_000 }, () => {
  it('passes on the reference', async () => {
    const result = await run(reference);
    expect(`${result.status}: ${result.reason ?? ''}`).toBe('passed: ');
  });

  it('fails a wallet API whose refusal tells that the binding exists', async () => {
    const result = await run(leaking.target);
    expect(result.status).toBe('failed');
    expect(result.reason).toMatch(
      /GET \/bindings\/\{bindingId\} with identity B: the refusal tells that the resource exists: for A's resource "HTTP 403 NOT_BINDING_OWNER/,
    );
  });

  it("fails a wallet API that shows another identity's binding", async () => {
    const result = await run(open.target);
    expect(result.status).toBe('failed');
    expect(result.reason).toMatch(
      /GET \/bindings\/\{bindingId\} with identity B: HTTP 200 for identity A's resource, expected a refusal/,
    );
  });
});
