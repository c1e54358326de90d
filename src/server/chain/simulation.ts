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

/**
 * The contract's methods that run on the node's state without a transaction: the ones that execute code, and
 * D-257 eth_getProof, which walks the state trie. All are bounded by D-200 and weighed by D-201.
 */
export const SIMULATED_METHODS: ReadonlySet<string> = new Set([
  'eth_call',
  'eth_estimateGas',
  'eth_createAccessList',
  'eth_getProof',
]);

/** What a refusal calls the simulated calls. */
const SIMULATED = 'simulated calls (eth_call, eth_estimateGas, eth_createAccessList, eth_getProof)';

/**
 * D-257: eth_getProof's params as the node reads them: each storage key a 32-byte word (Anvil refuses `0x1`,
 * which execution-apis and Besu take), and the block `latest` when it is left out (execution-apis's default).
 */
export function proofParams([address, keys, block]: unknown[]): unknown[] {
  const words = (keys as string[]).map((k) => `0x${k.slice(2).toLowerCase().padStart(64, '0')}`);
  return [address, words, block ?? 'latest'];
}

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
        `at most ${this.limits.perClient} ${SIMULATED} in flight per client IP`,
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
        `the gateway runs at most ${this.limits.total} ${SIMULATED} at a time; try again shortly`,
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
