/**
 * Webhook signing secrets at rest (D-130). The dispatcher needs each secret itself to sign with HMAC-SHA256
 * (spec: "each delivery carries an HMAC-SHA256 signature made with a shared secret"), so it cannot be kept
 * as a hash; it is sealed with AES-256-GCM under the key-encryption key that protects account keys, bound
 * to its endpoint. Stored form: `kek1:<kekId>:<base64url(nonce || ciphertext || tag)>`.
 */
import { and, eq, isNotNull, not, or, sql, type SQL } from 'drizzle-orm';
import type { Keyring } from '../ledger/keyring.ts';
import type { Database } from '../storage/database.ts';
import { webhookEndpoints } from '../storage/schema.ts';

const PREFIX = 'kek1';
const SEALED = /^kek1:(kek_[0-9A-Z]{26}):([A-Za-z0-9_-]+)$/;

/** Seals and opens the secrets of webhook endpoints with the stack's keyring. */
export class WebhookSecretBox {
  /** Uses the stack's keyring (src/ledger/keyring.ts). */
  constructor(private readonly keyring: Keyring) {}

  /** The stored form of `secret` for endpoint `endpointId`. */
  seal(endpointId: string, secret: string): string {
    const { kekId, sealed } = this.keyring.seal(new TextEncoder().encode(secret), context(endpointId));
    return `${PREFIX}:${kekId}:${Buffer.from(sealed).toString('base64url')}`;
  }

  /** The secret in `stored` (a value {@link seal} made for `endpointId`); throws naming the endpoint otherwise. */
  open(endpointId: string, stored: string): string {
    const match = SEALED.exec(stored);
    if (!match) throw new Error(`the webhook secret of ${endpointId} is not in its sealed form (D-130)`);
    const plain = this.keyring.open(match[1]!, Buffer.from(match[2]!, 'base64url'), context(endpointId));
    return new TextDecoder('utf-8', { fatal: true }).decode(plain);
  }

  /** Whether `stored` is in the sealed form (kek1:…). */
  static isSealed(stored: string): boolean {
    return SEALED.test(stored);
  }

  /**
   * Seals again under the active KEK every secret sealed under another one (the KEK rotation, D-061), and
   * seals any stored in clear. Runs inside the caller's transaction.
   */
  resealAll(tx: Database): Promise<number> {
    const active = `${PREFIX}:${this.keyring.activeId}:%`;
    return this.reseal(tx, (column) => and(isNotNull(column), not(sql`${column} like ${active}`))!);
  }

  /** Seals the secrets an svckit before D-130 stored in clear (at start). */
  sealClear(tx: Database): Promise<number> {
    return this.reseal(tx, (column) => and(isNotNull(column), not(sql`${column} like ${`${PREFIX}:%`}`))!);
  }

  private async reseal(
    tx: Database,
    stale: (column: typeof webhookEndpoints.secret | typeof webhookEndpoints.previousSecret) => SQL,
  ): Promise<number> {
    const rows = await tx
      .select({
        id: webhookEndpoints.id,
        secret: webhookEndpoints.secret,
        previousSecret: webhookEndpoints.previousSecret,
      })
      .from(webhookEndpoints)
      .where(or(stale(webhookEndpoints.secret), stale(webhookEndpoints.previousSecret)))
      .for('update');
    for (const row of rows) {
      const reseal = (value: string | null) =>
        value === null ? null : this.seal(row.id, WebhookSecretBox.isSealed(value) ? this.open(row.id, value) : value);
      await tx
        .update(webhookEndpoints)
        .set({ secret: reseal(row.secret), previousSecret: reseal(row.previousSecret) })
        .where(eq(webhookEndpoints.id, row.id));
    }
    return rows.length;
  }
}

/** What a sealed secret is bound to: its purpose and its endpoint. */
const context = (endpointId: string) => `webhook-secret:${endpointId}`;
