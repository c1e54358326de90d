/**
 * GET /history: spec "unified activity feed". D-014: `{chainId, address, items, sources}`; every source
 * consulted is listed, and "an unreachable source is listed as `unavailable`, never left out" — the answer
 * is still 200 with whatever the other sources returned. D-065: a chain id that is not configured is 400.
 */
import type { Hex } from 'viem';
import type { HistoryItem, HistoryResponse, HistorySource } from '@svckit/sdk/wallet';
import { zWalletGetHistoryQuery } from '@svckit/sdk/wallet/zod';
import { ErrorCode, RestError } from '../http/errors.ts';
import { guard, strict } from '../http/guards.ts';
import type { RpcDispatcher } from '../chain/service.ts';
import { canonicalAddress, type AddressKind } from './addresses.ts';
import { nativeHistory } from './history-native.ts';
import { readSource } from './history-sources.ts';
import type { HistorySourceConfig } from '../../config.ts';

/** The native source's name in `sources` (the observer node behind the gateway). */
export const NATIVE_SOURCE = 'svckit-observer';
const MAX_ITEMS = 500;

/** Reads the feed of one address from the gateway or the configured sources. */
export class HistoryService {
  constructor(
    private readonly dispatcher: RpcDispatcher,
    private readonly sources: HistorySourceConfig[],
    private readonly timeoutMs: number,
  ) {}

  /** Chain ids this service serves: the native chain and every chain with a configured source. */
  chains(): string[] {
    return ['1111111', ...new Set(this.sources.map((s) => s.chainId))];
  }

  /** Validates the query and collects every source's answer. */
  async feed(query: unknown): Promise<HistoryResponse> {
    const input = guard(strict(zWalletGetHistoryQuery), query, {
      chainId: '1111111, an EVM chain id, "bitcoin" or "tron"',
      address: 'an EVM (0x + 40 hex), Bitcoin (bc1q...) or Tron (T...) address',
    });
    const chains = this.chains();
    if (!chains.includes(input.chainId)) {
      throw new RestError(
        ErrorCode.UNSUPPORTED_CHAIN,
        `"chainId" expected ${chains.join(', ')} (the chains configured on this service), got "${input.chainId}"`,
      );
    }
    const family: AddressKind = input.chainId === 'bitcoin' ? 'bitcoin' : input.chainId === 'tron' ? 'tron' : 'evm';
    const { address } = canonicalAddress('address', input.address, [family], input.chainId);
    const jobs: { source: Omit<HistorySource, 'status'>; read: () => Promise<HistoryItem[]> }[] =
      input.chainId === '1111111'
        ? [
            {
              source: { name: NATIVE_SOURCE, chainId: '1111111' },
              read: () => nativeHistory(this.dispatcher, address as Hex),
            },
          ]
        : this.sources
            .filter((s) => s.chainId === input.chainId)
            .map((s) => ({
              source: { name: s.name, chainId: s.chainId },
              read: () => readSource(s, address, this.timeoutMs),
            }));
    const settled = await Promise.allSettled(jobs.map((j) => j.read()));
    const sources: HistorySource[] = [];
    const byId = new Map<string, HistoryItem>();
    settled.forEach((result, i) => {
      const { source } = jobs[i]!;
      if (result.status === 'fulfilled') {
        sources.push({ ...source, status: 'available' });
        for (const item of result.value) if (!byId.has(item.id)) byId.set(item.id, item);
      } else {
        const reason = result.reason instanceof Error ? result.reason.message : String(result.reason);
        sources.push({ ...source, status: 'unavailable', error: `${source.name}: ${reason}`.slice(0, 300) });
      }
    });
    return { chainId: input.chainId, address, items: order([...byId.values()]).slice(0, MAX_ITEMS), sources };
  }
}

/** Pending first, then newest first (D-014). */
function order(items: HistoryItem[]): HistoryItem[] {
  return items.sort((a, b) => {
    if ((a.blockNumber === null) !== (b.blockNumber === null)) return a.blockNumber === null ? -1 : 1;
    return (b.blockNumber ?? 0) - (a.blockNumber ?? 0);
  });
}
