// D-200: the gate of simulated calls. Over the per-client bound a call is refused at once; over the gateway-wide
// bound it waits a short, bounded time in a queue no longer than the bound, then is refused with -32005.
import { describe, expect, it } from 'vitest';
import { JsonRpcFailure } from '../../src/server/chain/errors.ts';
import { SimulationGate } from '../../src/server/chain/simulation.ts';

/** A piece of work that runs until released. */
function held() {
  const done = Promise.withResolvers<string>();
  let started = false;
  return {
    work: () => {
      started = true;
      return done.promise;
    },
    release: (value = 'done') => done.resolve(value),
    started: () => started,
  };
}

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

describe('SimulationGate (D-200)', () => {
  it('refuses a client over its bound at once with -32005, and admits it again once one call ends', async () => {
    const gate = new SimulationGate({ perClient: 2, total: 10 }, 1_000);
    const [a, b] = [held(), held()];
    const first = gate.run('10.0.0.1', a.work);
    const second = gate.run('10.0.0.1', b.work);
    const error = await refusal(gate.run('10.0.0.1', async () => 'never'));
    expect(error).toBeInstanceOf(JsonRpcFailure);
    expect((error as JsonRpcFailure).code).toBe(-32005);
    // Another client is not held to this one's bound.
    await expect(gate.run('10.0.0.2', async () => 'other')).resolves.toBe('other');
    a.release();
    await first;
    await expect(gate.run('10.0.0.1', async () => 'again')).resolves.toBe('again');
    b.release();
    await second;
  });

  it('lets a call over the total bound wait for a free slot', async () => {
    const gate = new SimulationGate({ perClient: 5, total: 1 }, 5_000);
    const a = held();
    const first = gate.run('10.0.0.1', a.work);
    const b = held();
    const second = gate.run('10.0.0.2', b.work);
    await Promise.resolve();
    expect(b.started()).toBe(false);
    a.release();
    await first;
    await expect.poll(() => b.started()).toBe(true);
    b.release('second');
    await expect(second).resolves.toBe('second');
  });

  it('refuses a waiter after the wait, and a caller beyond the queue bound at once', async () => {
    const gate = new SimulationGate({ perClient: 5, total: 1 }, 50);
    const a = held();
    const first = gate.run('10.0.0.1', a.work);
    const waiting = refusal(gate.run('10.0.0.2', async () => 'late'));
    const beyond = await refusal(gate.run('10.0.0.3', async () => 'beyond'));
    expect((beyond as JsonRpcFailure).code).toBe(-32005);
    expect(((await waiting) as JsonRpcFailure).code).toBe(-32005);
    // The refused waiter left no trace: the slot is handed on as usual.
    a.release();
    await first;
    await expect(gate.run('10.0.0.2', async () => 'now')).resolves.toBe('now');
  });

  it('frees the place of a call whose work fails', async () => {
    const gate = new SimulationGate({ perClient: 1, total: 1 }, 50);
    await expect(gate.run('10.0.0.1', () => Promise.reject(new Error('node down')))).rejects.toThrow('node down');
    await expect(gate.run('10.0.0.1', async () => 'ok')).resolves.toBe('ok');
  });
});
