/**
 * The engine's writes put back (D-235): before a case is sent, whether a deployment may receive it (D-236,
 * D-237); after each answer, the undo of what a 2xx write made, or the history it left, in the run's cleanup
 * registry (`conformance/cleanup.ts`), which `svckit conformance` runs when the run ends (D-182).
 */
import { getAddress } from 'viem';
import { forgetCreated, registerCreated, registered, registerLeft } from '../../cleanup.ts';
import { request } from '../../http.ts';
import type { Target } from '../../targets/target.ts';
import type { CaseKind, EngineCase } from '../core/cases.ts';
import type { WireRequest, WireResponse } from '../core/client.ts';
import type { EngineSurface, Operation } from './contract.ts';
import type { EngineTarget, WriteScope } from '../core/types.ts';
import { type IdFrom, type Undo, WRITES, type WriteRule } from './writes.ts';

/** Cases that expect the operation to succeed: the ones that change a system (D-237). */
const VALID: readonly CaseKind[] = ['positive', 'after_create'];

/**
 * A deployment: a system someone keeps. The in-process reference the engine starts for itself is discarded
 * after the run, and the mocks keep nothing (D-190).
 */
const isDeployment = (target: Target) => target.kind !== 'reference' && target.kind !== 'mocks';

/** The scope of a run on `target`: reads the sender allow-list as the run starts (D-239). */
export async function writeScopeOf(target: Target): Promise<WriteScope> {
  const senders = new Set<string>();
  if (!target.adminToken || !target.base) return { target, senders };
  for (let page = 1; ; page++) {
    const res = await request(target, `admin/v1/chain/accounts?page=${page}&limit=200`, {
      headers: { authorization: `Bearer ${target.adminToken}` },
    });
    // A deployment on an external chain has no allow-list (409, D-152): nothing to keep.
    if (res.status !== 200) return { target, senders };
    const { accounts = [], total = 0 } = (res.json ?? {}) as { accounts?: { address: string }[]; total?: number };
    for (const { address } of accounts) senders.add(address.toLowerCase());
    if (accounts.length === 0 || page * 200 >= total) return { target, senders };
  }
}

/** Why case `c` of `op` is not sent to the target (D-236, D-237), or undefined when it may be. */
export function mayChange(engine: EngineTarget, op: Operation, c: EngineCase): string | undefined {
  const scope = engine.writes;
  const rule = WRITES[op.surface][op.id];
  if (!scope || !rule || !isDeployment(scope.target) || !VALID.includes(c.kind)) return undefined;
  if (rule.class === 'avoided') return `${op.id} is sent no valid input on a deployment: ${rule.why}`;
  if (rule.changes) {
    const id = idOf(rule.changes.id, c.input.params, c.input.body, undefined);
    if (id === undefined || madeBy(scope.target, rule.changes.kind, id) === undefined)
      return `${op.id} is sent valid input on a deployment only for the run's own ${rule.changes.kind} (D-236)`;
  }
  return undefined;
}

/** Registers what a 2xx answer to a write changed: its undo, its end, what it left, or what cannot be put back. */
export function recordWrite(engine: EngineTarget, sent: WireRequest, response: WireResponse): void {
  const scope = engine.writes;
  if (!scope || response.status < 200 || response.status >= 300) return;
  const hit = writeOf(engine, sent);
  if (!hit) return;
  const { surface, id: opId, rule, params } = hit;
  const target = scope.target;
  const body = parsed(sent.body);
  const answer = response.json;
  const id = (from: IdFrom) => idOf(from, params, body, answer);
  if (rule.changes) {
    const named = id(rule.changes.id);
    if (named === undefined || madeBy(target, rule.changes.kind, named) === undefined)
      cannotUndo(target, `${rule.changes.kind} changed by ${opId}`, named ?? '?', 'the run did not make it (D-236)');
  }
  if (rule.ends) {
    const made = madeBy(target, rule.ends.kind, id(rule.ends.id));
    const { when } = rule.ends;
    const ended = !when || (answer as Record<string, unknown> | undefined)?.[when.member] === when.equals;
    if (made !== undefined && ended) forgetCreated(target, rule.ends.kind, made);
  }
  if (rule.class === 'avoided') cannotUndo(target, opId, opId, rule.why);
  if (rule.undo) {
    const made = id(rule.undo.id);
    if (made === undefined)
      cannotUndo(target, rule.undo.kind, '?', `${opId} answered no ${JSON.stringify(rule.undo.id)}`);
    else if (!(rule.undo.unlessListedAtStart && scope.senders.has(made.toLowerCase())))
      registerCreated(target, {
        kind: rule.undo.kind,
        id: made,
        undo: undoOf(engine, target, surface, rule.undo, made, sent),
      });
  }
  if (rule.left) {
    const left = rule.left.id ? id(rule.left.id) : undefined;
    registerLeft(target, { kind: rule.left.kind, why: rule.why, ...(left !== undefined ? { id: left } : {}) });
  }
}

/** A registry entry whose undo cannot succeed: the cleanup reports it as not undone. */
function cannotUndo(target: Target, kind: string, id: string, why: string): void {
  registerCreated(target, {
    kind,
    id,
    undo: async () => {
      throw new Error(`cannot be put back: ${why}`);
    },
  });
}

/** The undo request of `undo` for `id`, sent when the run ends. */
function undoOf(
  engine: EngineTarget,
  target: Target,
  surface: EngineSurface,
  undo: Undo,
  id: string,
  sent: WireRequest,
): () => Promise<unknown> {
  const [method = 'DELETE', route = '/'] = undo.call.split(' ');
  const base = engine.bases[surface];
  const authorization = undo.as === 'admin' ? `Bearer ${target.adminToken}` : sent.headers.authorization;
  return async () => {
    if (!base) throw new Error(`no base URL for the ${surface} surface`);
    const url = new URL(route.replace(/\{[^}]+\}/, encodeURIComponent(id)).slice(1), base);
    const res = await request(target, url, {
      method,
      headers: authorization ? { authorization } : {},
      ...(undo.body !== undefined ? { body: undo.body } : {}),
    });
    if (!undo.ok.includes(res.status))
      throw new Error(`${undo.call} answered HTTP ${res.status}: ${res.text.slice(0, 200)}`);
    return res.status === 404 ? 'unchanged' : undefined;
  };
}

/** The write operation `sent` goes to, its rule and its path parameters; undefined for a read. */
function writeOf(
  engine: EngineTarget,
  sent: WireRequest,
): { surface: EngineSurface; id: string; rule: WriteRule; params: Record<string, string> } | undefined {
  const url = new URL(sent.url);
  for (const [surface, base] of Object.entries(engine.bases) as [EngineSurface, URL][]) {
    if (url.origin !== base.origin || !url.pathname.startsWith(base.pathname)) continue;
    const path = url.pathname.slice(base.pathname.length);
    for (const [id, rule] of Object.entries(WRITES[surface])) {
      const [method, route = ''] = id.split(' ');
      if (method !== sent.method) continue;
      const names: string[] = [];
      const pattern = route
        .slice(1)
        .replace(/[.*+?^$()|[\]\\]/g, '\\$&')
        .replace(/\{([^}]+)\}/g, (_, name: string) => {
          names.push(name);
          return '([^/]+)';
        });
      const m = new RegExp(`^${pattern}$`).exec(path);
      if (!m) continue;
      const params: Record<string, string> = {};
      names.forEach((name, i) => {
        params[`path:${name}`] = decodeURIComponent(m[i + 1] as string);
      });
      return { surface, id, rule, params };
    }
  }
  return undefined;
}

/** The id `from` names in a request (path parameters by `path:name`, body) or its answer; undefined when absent. */
function idOf(
  from: IdFrom,
  params: Record<string, string | undefined>,
  body: unknown,
  answer: unknown,
): string | undefined {
  const member = (doc: unknown, name: string) => (doc as Record<string, unknown> | undefined)?.[name];
  const value =
    'path' in from
      ? params[`path:${from.path}`]
      : 'body' in from
        ? member(body, from.body)
        : member(answer, from.answer);
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** The id under which the run registered `kind` `id` (an address in any letter case, D-152), or undefined. */
function madeBy(target: Target, kind: string, id: string | undefined): string | undefined {
  if (id === undefined) return undefined;
  const spellings = /^0x[0-9a-fA-F]{40}$/.test(id) ? [id, id.toLowerCase(), getAddress(id.toLowerCase())] : [id];
  return spellings.find((s) => registered(target, kind, s));
}

const parsed = (text: string | undefined): unknown => {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};
