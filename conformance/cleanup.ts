/**
 * Everything the harness creates on a target (API keys, ML-DSA keys, webhook endpoints, accounts, chain
 * senders, and the QBFT validator set a run may vote on), in one registry, so a run removes it again at its end,
 * also when interrupted (D-182). Each entry carries its own undo: delete where the admin API allows it,
 * otherwise disable (an account is closed, D-008); a changed validator set is voted back. What a run changes and
 * cannot or need not undo (ledger history, D-235) is registered too, and the summary lists it as left.
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

/** One thing a run changed on a target and leaves as it is (ledger history, D-235). */
export type Left = {
  /** What it is, for the cleanup summary (`transfer`, `funding`, ...). */
  kind: string;
  /** Its id on the target, when it has one. */
  id?: string;
  /** Why it stays. */
  why: string;
};

/** The outcome of one cleanup. */
export type CleanupSummary = {
  /** Entries undone, by kind. */
  undone: Record<string, number>;
  /** One line per entry the target refused or that failed. */
  failures: string[];
  /** What the run changed and left as it is, by kind and reason (D-235); absent when it left nothing. */
  left?: { kind: string; count: number; why: string }[];
};

/**
 * Undo order: the validator set first (its votes use only the admin token), then endpoints (no more deliveries
 * are scheduled), then credentials, then accounts and senders. Kinds not named here run last.
 */
const ORDER = ['QBFT validator set', 'webhook endpoint', 'API key', 'ML-DSA key', 'account', 'chain sender'];

const registry = new WeakMap<Target, { created: Created[]; left: Left[] }>();

const entriesOf = (target: Target) => {
  let entries = registry.get(target);
  if (!entries) {
    entries = { created: [], left: [] };
    registry.set(target, entries);
  }
  return entries;
};

/** Records `created` on `target`; `svckit conformance` undoes it when the run ends. */
export function registerCreated(target: Target, created: Created): void {
  entriesOf(target).created.push(created);
}

/** Records a change the run leaves on `target` (D-235); the cleanup summary lists it. */
export function registerLeft(target: Target, left: Left): void {
  entriesOf(target).left.push(left);
}

/** Whether the run registered `kind` `id` on `target`, to undo or as left: the run made it. */
export function registered(target: Target, kind: string, id: string): boolean {
  const entries = registry.get(target);
  return (
    entries !== undefined &&
    (entries.created.some((c) => c.kind === kind && c.id === id) ||
      entries.left.some((l) => l.kind === kind && l.id === id))
  );
}

/** Forgets an entry that a check already removed itself (e.g. a deleted endpoint). */
export function forgetCreated(target: Target, kind: string, id: string): void {
  const list = registry.get(target)?.created;
  if (!list) return;
  const at = list.findIndex((c) => c.kind === kind && c.id === id);
  if (at >= 0) list.splice(at, 1);
}

/** What is registered on `target` and not yet undone. */
export function pendingCleanup(target: Target): readonly Created[] {
  return [...(registry.get(target)?.created ?? [])];
}

const rank = (kind: string) => {
  const at = ORDER.indexOf(kind);
  return at < 0 ? ORDER.length : at;
};

/** Undoes every entry of `target` (newest first within a kind); entries that fail are reported, not retried. */
export async function cleanUp(target: Target): Promise<CleanupSummary> {
  const { created: list, left } = registry.get(target) ?? { created: [], left: [] };
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
  const kept = new Map<string, { kind: string; count: number; why: string }>();
  for (const { kind, why } of left) {
    const key = `${kind}\n${why}`;
    const row = kept.get(key) ?? { kind, count: 0, why };
    row.count += 1;
    kept.set(key, row);
  }
  if (kept.size > 0) summary.left = [...kept.values()];
  return summary;
}

const counted = (n: number, kind: string) => `${n} ${kind}${n === 1 ? '' : 's'}`;

/**
 * One line describing a cleanup, e.g. `cleaned up 3 webhook endpoints, 5 API keys; left as history: 2 transfers;
 * 1 could not be undone: ...`.
 */
export function describeCleanup(summary: CleanupSummary): string {
  const parts = Object.entries(summary.undone).map(([kind, n]) => counted(n, kind));
  const done = parts.length ? `cleaned up ${parts.join(', ')}` : 'nothing to clean up';
  const byKind = new Map<string, number>();
  for (const { kind, count } of summary.left ?? []) byKind.set(kind, (byKind.get(kind) ?? 0) + count);
  const left = byKind.size ? `; left as history: ${[...byKind].map(([kind, n]) => counted(n, kind)).join(', ')}` : '';
  return summary.failures.length
    ? `${done}${left}; ${summary.failures.length} could not be undone: ${summary.failures.slice(0, 5).join('; ')}`
    : `${done}${left}`;
}
