/**
 * Simulated calls (eth_call, eth_estimateGas) run the EVM on the node that seals the blocks, and the node holds
 * its state while it runs them, so a mine waits for every simulation in flight. Three bounds keep them from
 * holding block production: a gas cap (D-199), simulations in flight per client IP and in total (D-200), and a
 * rate-limit weight (D-201).
 */
import { JsonRpcFailure } from './errors.ts';
import type { SimulationLimits } from './simulation-limits.ts';

/** D-200: how long a call waits for a gateway-wide slot before it is refused with -32005. */
export const SIMULATION_WAIT_MS = 1_000;

/** The contract's methods that execute code without a transaction. */
export const SIMULATED_METHODS: ReadonlySet<string> = new Set(['eth_call', 'eth_estimateGas']);

/**
 * D-199: the params with the call object's gas at most `cap`; a call that names no gas gets `cap`, where the
 * node would otherwise use the block gas limit (Geth `--rpc.gascap`, Besu `--rpc-gas-cap`).
 */
export function capGas(params: unknown[], cap: number): unknown[] {
  const call = params[0];
  if (typeof call !== 'object' || call === null || Array.isArray(call)) return params;
  const gas = (call as { gas?: unknown }).gas;
  if (typeof gas === 'string' && /^0x[0-9a-f]+$/i.test(gas) && BigInt(gas) <= BigInt(cap)) return params;
  return [{ ...call, gas: `0x${cap.toString(16)}` }, ...params.slice(1)];
}

type Waiter = { go: () => void; timer: NodeJS.Timeout };

/**
 * D-200: admits simulated calls. Over the per-client bound a call is refused at once; over the gateway-wide
 * bound it waits up to {@link SIMULATION_WAIT_MS} in a queue of at most `total` callers, then is refused. No
 * call ever queues without bound.
 */
export class SimulationGate {
  private running = 0;
  private readonly perClient = new Map<string, number>();
  private readonly queue: Waiter[] = [];

  /** Creates a gate with the D-200 bounds of `limits`; at most `queueLength` callers (default `total`) wait. */
  constructor(
    private readonly limits: Pick<SimulationLimits, 'perClient' | 'total'>,
    private readonly waitMs = SIMULATION_WAIT_MS,
    private readonly queueLength = limits.total,
  ) {}

  /** Runs `work` once admitted; throws JsonRpcFailure LimitExceeded (-32005) when it is not. */
  async run<T>(client: string, work: () => Promise<T>): Promise<T> {
    const held = this.perClient.get(client) ?? 0;
    if (held >= this.limits.perClient) {
      throw new JsonRpcFailure(
        'LimitExceeded',
        `at most ${this.limits.perClient} eth_call or eth_estimateGas in flight per client IP`,
      );
    }
    this.perClient.set(client, held + 1);
    try {
      await this.admit();
    } catch (error) {
      this.leave(client, false);
      throw error;
    }
    try {
      return await work();
    } finally {
      this.leave(client, true);
    }
  }

  private admit(): Promise<void> {
    if (this.running < this.limits.total) {
      this.running += 1;
      return Promise.resolve();
    }
    const busy = () =>
      new JsonRpcFailure(
        'LimitExceeded',
        `the gateway runs at most ${this.limits.total} eth_call or eth_estimateGas at a time; try again shortly`,
      );
    if (this.queue.length >= this.queueLength) return Promise.reject(busy());
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        go: () => {
          clearTimeout(waiter.timer);
          resolve();
        },
        timer: setTimeout(() => {
          this.queue.splice(this.queue.indexOf(waiter), 1);
          reject(busy());
        }, this.waitMs),
      };
      this.queue.push(waiter);
    });
  }

  /** Frees the client's place, and the running slot when it held one (handed to the next waiter). */
  private leave(client: string, ran: boolean): void {
    const held = (this.perClient.get(client) ?? 1) - 1;
    if (held > 0) this.perClient.set(client, held);
    else this.perClient.delete(client);
    if (!ran) return;
    const next = this.queue.shift();
    if (next) next.go();
    else this.running -= 1;
  }
}
