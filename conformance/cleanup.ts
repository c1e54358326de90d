/**
 * Everything the harness creates on a target (API keys, ML-DSA keys, webhook endpoints, accounts, chain
 * senders, and the QBFT validator set a run may vote on), in one registry, so a run removes it again at its end,
 * also when interrupted (D-182). Each entry carries its own undo: delete where the admin API allows it,
 * otherwise disable (an account is closed, D-008); a changed validator set is voted back.
 */
import type { Target } from './targets/target.ts';

/** One thing the harness created on a target. */
export type Created = {
  /** What it is, for the cleanup summary (`webhook endpoint`, `API key`, ...). */
  kind: string;
  /** Its id on the target. */
  id: string;
  /** Removes or disables it; throws when the target refuses; resolves to 'unchanged' when there was nothing to undo. */
  undo(): Promise<unknown>;
};

/** The outcome of one cleanup. */
export type CleanupSummary = {
  /** Entries undone, by kind. */
  undone: Record<string, number>;
  /** One line per entry the target refused or that failed. */
  failures: string[];
};

/**
 * Undo order: the validator set first (its votes use only the admin token), then endpoints (no more deliveries
 * are scheduled), then credentials, then accounts and senders. Kinds not named here run last.
 */
const ORDER = ['QBFT validator set', 'webhook endpoint', 'API key', 'ML-DSA key', 'account', 'chain sender'];

const registry = new WeakMap<Target, Created[]>();

/** Records `created` on `target`; `svckit conformance` undoes it when the run ends. */
export function registerCreated(target: Target, created: Created): void {
  let list = registry.get(target);
  if (!list) {
    list = [];
    registry.set(target, list);
  }
  list.push(created);
}

/** Forgets an entry that a check already removed itself (e.g. a deleted endpoint). */
export function forgetCreated(target: Target, kind: string, id: string): void {
  const list = registry.get(target);
  if (!list) return;
  const at = list.findIndex((c) => c.kind === kind && c.id === id);
  if (at >= 0) list.splice(at, 1);
}

/** What is registered on `target` and not yet undone. */
export function pendingCleanup(target: Target): readonly Created[] {
  return [...(registry.get(target) ?? [])];
}

const rank = (kind: string) => {
  const at = ORDER.indexOf(kind);
  return at < 0 ? ORDER.length : at;
};

/** Undoes every entry of `target` (newest first within a kind); entries that fail are reported, not retried. */
export async function cleanUp(target: Target): Promise<CleanupSummary> {
  const list = registry.get(target) ?? [];
  registry.delete(target);
  const ordered = list
    .map((created, at) => ({ created, at }))
    .sort((a, b) => rank(a.created.kind) - rank(b.created.kind) || b.at - a.at)
    .map(({ created }) => created);
  const summary: CleanupSummary = { undone: {}, failures: [] };
  for (const created of ordered) {
    try {
      if ((await created.undo()) !== 'unchanged')
        summary.undone[created.kind] = (summary.undone[created.kind] ?? 0) + 1;
    } catch (error) {
      summary.failures.push(`${created.kind} ${created.id}: ${(error as Error).message}`);
    }
  }
  return summary;
}

/** One line describing a cleanup, e.g. `removed 3 webhook endpoints, 5 API keys; closed 4 accounts`. */
export function describeCleanup(summary: CleanupSummary): string {
  const parts = Object.entries(summary.undone).map(([kind, n]) => `${n} ${kind}${n === 1 ? '' : 's'}`);
  const done = parts.length ? `cleaned up ${parts.join(', ')}` : 'nothing to clean up';
  return summary.failures.length
    ? `${done}; ${summary.failures.length} could not be undone: ${summary.failures.slice(0, 5).join('; ')}`
    : done;
}
