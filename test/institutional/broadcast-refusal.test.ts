// spec: "If the broadcast fails the record is marked failed and is not retried". The in-process reference's
// node refuses one eth_sendRawTransaction (refuseNextSend): institutional.transfer.broadcast_failure passes on
// the reference as it is, and fails on a reference given a fault on purpose, a chain client that sends a refused
// transaction once more at once (which a node stopped for the whole request would refuse again, unseen).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CheckResult } from '../../conformance/runner.ts';
import { institutionalTransferChecks } from '../../conformance/checks/institutional/transfers.ts';
import { referenceTarget } from '../../conformance/targets/reference.ts';
import type { Target } from '../../conformance/targets/target.ts';
import type { Stack } from '../../src/server/app.ts';
import { runGroup } from './support.ts';

const CHECK = 'institutional.transfer.broadcast_failure';

/** The fault: every eth_sendRawTransaction the node answers with an error is sent once more, at once. */
function retryRefusedSends(stack: Stack): void {
  const upstream = stack.chain.upstream;
  const send = upstream.send.bind(upstream);
  upstream.send = async (method, params) => {
    const answer = await send(method, params);
    return method === 'eth_sendRawTransaction' && answer.error ? send(method, params) : answer;
  };
}

let sound: Target;
let retrying: Target;
beforeAll(async () => {
  [sound, retrying] = await Promise.all([referenceTarget(), referenceTarget({ injectFault: retryRefusedSends })]);
});
afterAll(async () => {
  await Promise.all([sound?.close?.(), retrying?.close?.()]);
});

const run = async (target: Target): Promise<CheckResult> =>
  (
    await runGroup(
      target,
      institutionalTransferChecks().filter((c) => c.id === CHECK),
    )
  )[0]!;

describe(CHECK, () => {
  it('passes on the reference, whose node refused the one send it got', async () => {
    const result = await run(sound);
    expect(`${result.status}: ${result.reason ?? ''}`).toBe('passed: ');
  });

  it('fails a server that sends a refused broadcast again at once: not failed, sent twice, known to the node', async () => {
    const result = await run(retrying);
    expect(result.status).toBe('failed');
    expect(result.reason).toMatch(/expected ok false and status failed \(D-055\), got \{"ok":true/);
    expect(result.reason).toMatch(
      /the server sent 0x[0-9a-f]{64} to the node 2 times; a refused broadcast is sent once/,
    );
    expect(result.reason).toMatch(/the node knows the refused transaction 0x[0-9a-f]{64}: it was sent again/);
  });

  it('is skipped, saying why, on a reference target that cannot refuse a send', async () => {
    const thin: Target = { ...sound, reference: { ...sound.reference!, refuseNextSend: undefined } };
    const result = await run(thin);
    expect([result.status, result.reason]).toEqual(['skipped', 'the reference target offers no refuseNextSend()']);
  });
});
