/** Identifier formats (D-036, D-039, D-057): random, unguessable, with a type prefix. */
import { randomBytes } from 'node:crypto';

/** Crockford base32 (no I, L, O, U), as in ULIDs. */
const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** `count` random Crockford base32 characters. */
export function crockford(count: number): string {
  const bytes = randomBytes(count);
  let out = '';
  for (let i = 0; i < count; i++) out += CROCKFORD[bytes[i]! & 31];
  return out;
}

/** A resource id: `prefix` + 26 Crockford characters (`acc_`, `key_`, `mlk_`, `whe_`, `kek_`). */
export const resourceId = (prefix: 'acc' | 'key' | 'mlk' | 'whe' | 'kek') => `${prefix}_${crockford(26)}`;

/** The YYYYMMDD of `date` in UTC. */
export const utcDay = (date: Date) => date.toISOString().slice(0, 10).replace(/-/g, '');

/** A transfer reference `TXNYYYYMMDD-XXXXXXXX` (spec format; D-039), the suffix in Crockford base32 (a subset of [0-9A-Z]). */
export const transferReference = (now: Date) => `TXN${utcDay(now)}-${crockford(8)}`;

/** A payment reference `PMT-YYYYMMDD-XXXXXXXXXXXX` (D-034). */
export const paymentReference = (now: Date) => `PMT-${utcDay(now)}-${crockford(12)}`;

/** A 256-bit secret token with a prefix (`svc_…` API keys, D-039). */
export const secretToken = (prefix: string) => `${prefix}${randomBytes(32).toString('base64url')}`;
