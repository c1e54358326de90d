/**
 * One-time codes that prove control of an email before a managed account is bound to it (D-210). A code is
 * 8 random digits, valid 10 minutes, bound to the identity and the email that asked, usable once, with 5
 * tries; only the newest request of an identity for an email counts. The database keeps an HMAC of it under a
 * key derived from the service's shared key, so a code issued by one instance is checked by any other.
 * A taken email gets a notice to its owner instead of a code; the caller's answer is the same either way.
 */
import { createHmac, randomInt, randomUUID, timingSafeEqual } from 'node:crypto';
import type { Clock } from '@svckit/sdk/clock';
import type { Database } from '../../storage/database.ts';
import type { Mailer } from '../mail/mailer.ts';
import { ErrorCode, RestError } from '../http/errors.ts';
import {
  consumeCode,
  insertCodeRequest,
  newestCodeRequest,
  pruneCodeRequests,
  requestsForEmail,
  requestsFromIp,
  spendAttempt,
} from './managed-code-store.ts';

/** D-210: how long a code is accepted. */
export const CODE_TTL_MS = 10 * 60_000;
/** D-210: tries of one code, right or wrong. */
export const CODE_ATTEMPTS = 5;
/** D-210: the window of the per-email and per-IP bounds. */
export const CODE_WINDOW_MS = 60 * 60_000;

/** The per-hour bounds (SVC_MANAGED_CODES_PER_EMAIL, SVC_MANAGED_CODES_PER_IP; 0 lifts the per-IP one). */
export type CodeLimits = { perEmail: number; perIp: number };

/** Issues, delivers and checks the codes. */
export class EmailCodes {
  /** `codeKey` keys the stored HMAC of each code; it must be the same on every instance. */
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    private readonly codeKey: Uint8Array,
    private readonly mailer: Mailer,
    private readonly limits: CodeLimits,
  ) {}

  /**
   * Handles one request of `svcId` from `ip` for the normalised `email`: a code when the email is free, a
   * notice when `taken`, nothing past the per-email bound (D-210: the same answer in all three cases);
   * 429 past the per-IP bound. Returns when a code sent now would expire.
   */
  async request(svcId: string, email: string, ip: string, taken: boolean): Promise<Date> {
    const now = this.clock.now();
    const since = new Date(now - CODE_WINDOW_MS);
    const expiresAt = new Date(now + CODE_TTL_MS);
    await pruneCodeRequests(this.db, since);
    if (this.limits.perIp > 0) {
      const fromIp = await requestsFromIp(this.db, ip, since);
      if (fromIp.n >= this.limits.perIp) {
        const wait = Math.max(1, Math.ceil(((fromIp.oldest?.getTime() ?? now) + CODE_WINDOW_MS - now) / 1000));
        throw new RestError(
          ErrorCode.RATE_LIMITED,
          `too many email codes: ${this.limits.perIp} per hour per IP, retry in ${wait} seconds`,
          { headers: { 'retry-after': String(wait) } },
        );
      }
    }
    // Past the per-email bound nothing is stored or sent: the mailbox is not flooded, and the caller cannot
    // tell this case from the others.
    if ((await requestsForEmail(this.db, email, since)) >= this.limits.perEmail) return expiresAt;
    const code = taken ? undefined : String(randomInt(0, 100_000_000)).padStart(8, '0');
    await insertCodeRequest(this.db, {
      id: randomUUID(),
      email,
      svcId,
      ip,
      codeHash: code === undefined ? null : this.hash(email, svcId, code),
      createdAt: new Date(now),
      expiresAt,
    });
    this.mailer.send(code === undefined ? noticeMail(email, svcId) : codeMail(email, svcId, code));
    return expiresAt;
  }

  /** True when `code` is the live code of `svcId` for `email`; it is then used up. Every call spends a try. */
  async consume(svcId: string, email: string, code: string): Promise<boolean> {
    const now = new Date(this.clock.now());
    const candidate = this.hash(email, svcId, code);
    const row = await newestCodeRequest(this.db, email, svcId);
    const stored = row && (await spendAttempt(this.db, row.id, now, CODE_ATTEMPTS));
    if (!row || !stored || !timingSafeEqual(Buffer.from(stored), candidate)) return false;
    return consumeCode(this.db, row.id, now);
  }

  private hash(email: string, svcId: string, code: string): Buffer {
    return createHmac('sha256', this.codeKey).update(`${email}\n${svcId}\n${code}`).digest();
  }
}

const MINUTES = CODE_TTL_MS / 60_000;

function codeMail(to: string, svcId: string, code: string) {
  return {
    to,
    subject: 'Your svckit managed-account code',
    text: [
      `Your code is ${code}.`,
      '',
      `Enter it to open a managed account with this email address for wallet identity ${svcId}. It is valid for ${MINUTES} minutes and works once.`,
      '',
      'If you did not ask for it, ignore this message: nothing is bound to this address without the code.',
    ].join('\n'),
  };
}

function noticeMail(to: string, svcId: string) {
  return {
    to,
    subject: 'A managed account was asked for with your email address',
    text: [
      `Wallet identity ${svcId} asked to open a managed account with this email address, which already has one.`,
      'No code was sent and nothing changed.',
      '',
      'If it was you, sign in with your password instead; to move the account to another wallet identity, close it first.',
    ].join('\n'),
  };
}
