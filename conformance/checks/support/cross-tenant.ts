/**
 * What the `cross_tenant_access` checks of surfaces A and E share (D-242): an id of the same form that names
 * nothing, and a refusal as compared for what it tells about existence.
 */
import { randomInt } from 'node:crypto';
import type { HttpResult } from '../../http.ts';

/** The alphabet an id's last character is drawn from: lower-case hex (UUIDs, fingerprints), digits, or ULID. */
function alphabetOf(id: string): string {
  if (/^[0-9a-f-]+$/.test(id) && /[a-f]/.test(id)) return '0123456789abcdef';
  return /[0-9]$/.test(id) ? '0123456789' : '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
}

/** A valid id of the same form as `id` that names nothing: its last character changed. */
export function unknownLike(id: string): string {
  const last = id.at(-1) ?? '0';
  const others = [...alphabetOf(id)].filter((c) => c !== last);
  return `${id.slice(0, -1)}${others[randomInt(others.length)]}`;
}

/** An answer as compared for existence: status, machine code and error text with the ids taken out. */
export function refusalOf(res: HttpResult, ids: readonly string[]): string {
  const body = (res.json ?? {}) as { error?: unknown; code?: unknown };
  let text = typeof body.error === 'string' ? body.error : res.text;
  for (const id of ids) text = text.split(id).join('<id>');
  return `HTTP ${res.status} ${String(body.code ?? '')} ${text}`.trim();
}
