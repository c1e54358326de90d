/**
 * `eth_subscribe` on the WebSocket endpoint (D-012): `newHeads` notifies every new block header, `logs` the
 * logs of each new block that match the subscription's filter, as geth and Besu do.
 */
import { randomBytes } from 'node:crypto';
import type { Hex } from 'viem';
import type { SubscriptionType } from '@svckit/sdk/chain/types';
import type { Upstream } from '../../../node/upstream.ts';
import { JsonRpcFailure } from '../errors.ts';

type LogFilter = { address?: Hex | Hex[]; topics?: (Hex | Hex[] | null)[] };
type Subscription = { kind: 'newHeads' } | { kind: 'logs'; filter: LogFilter };

/** Sends one notification frame. */
export type Notify = (subscription: string, result: unknown) => void;

/** The subscriptions of one WebSocket connection. */
export class SubscriptionSet {
  private readonly subscriptions = new Map<string, Subscription>();

  /** Notifications go through `notify`; at most `max` subscriptions at a time (D-135). */
  constructor(
    private readonly upstream: Upstream,
    private readonly max: number,
    private readonly notify: Notify,
  ) {}

  /** Adds a subscription; returns its id (16 random bytes, 0x-hex); -32005 past the D-135 cap. */
  add(kind: SubscriptionType, filter: LogFilter = {}): string {
    if (this.subscriptions.size >= this.max) {
      throw new JsonRpcFailure(
        'LimitExceeded',
        `a connection holds at most ${this.max} subscriptions; eth_unsubscribe one first`,
      );
    }
    const id = `0x${randomBytes(16).toString('hex')}`;
    this.subscriptions.set(id, kind === 'logs' ? { kind, filter } : { kind });
    return id;
  }

  /** Removes a subscription; false when it did not exist. */
  remove(id: string): boolean {
    return this.subscriptions.delete(id);
  }

  /** How many subscriptions are open. */
  get size(): number {
    return this.subscriptions.size;
  }

  /** Announces block `number` to every subscription. */
  async onBlock(number: number): Promise<void> {
    if (this.subscriptions.size === 0) return;
    const tag = `0x${number.toString(16)}`;
    const wantsLogs = [...this.subscriptions.values()].some((s) => s.kind === 'logs');
    const [header, logs] = await Promise.all([
      this.upstream.call<Record<string, unknown>>('eth_getBlockByNumber', [tag, false]),
      wantsLogs
        ? this.upstream.call<Record<string, unknown>[]>('eth_getLogs', [{ fromBlock: tag, toBlock: tag }])
        : Promise.resolve([]),
    ]);
    const { transactions: _omitted, ...headerOnly } = header;
    for (const [id, subscription] of this.subscriptions) {
      if (subscription.kind === 'newHeads') this.notify(id, headerOnly);
      else for (const log of logs.filter((l) => matches(l, subscription.filter))) this.notify(id, log);
    }
  }
}

/** Whether a log matches an address and topics filter (null = any topic at that position). */
function matches(log: Record<string, unknown>, filter: LogFilter): boolean {
  const address = String(log.address).toLowerCase();
  if (filter.address) {
    const wanted = [filter.address].flat().map((a) => a.toLowerCase());
    if (!wanted.includes(address)) return false;
  }
  const topics = (log.topics as string[]).map((t) => t.toLowerCase());
  return (filter.topics ?? []).every(
    (want, i) =>
      want === null ||
      [want]
        .flat()
        .map((t) => t.toLowerCase())
        .includes(topics[i] ?? ''),
  );
}
