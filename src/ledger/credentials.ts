/**
 * Institutional credentials (spec "Authentication", D-015): bearer API keys (`svc_…`, stored as SHA-256
 * hashes) and registered ML-DSA-65 public keys, each with permissions and an optional account list.
 */
import { createHash } from 'node:crypto';
import { and, desc, eq, isNull, type SQL, sql } from 'drizzle-orm';
import type { Permission } from '@svckit/sdk/admin';
import { dateOf, type Clock } from '@svckit/sdk/clock';
import { sha3_256, toHex } from '@svckit/sdk/crypto';
import type { Database } from '../storage/database.ts';
import { apiKeys, mldsaKeys } from '../storage/schema.ts';
import { resourceId, secretToken } from './ids.ts';

/** D-015: what a credential may do (the admin contract's `Permission`). */
export type { Permission };

/** An authenticated caller. */
export type Credential = {
  id: string;
  kind: 'api_key' | 'mldsa';
  permissions: Permission[];
  accountIds: string[] | null;
};

/** Fields an administrator sets on a credential. */
export type CredentialGrant = { name: string; permissions: Permission[]; accountIds: string[] | null };

/** The table of each kind of credential. */
const TABLES = { api_key: apiKeys, mldsa: mldsaKeys } as const;
type CredentialTable = (typeof TABLES)[keyof typeof TABLES];
/** A row of one of the credential tables. */
type RowOf<T extends CredentialTable> = T['$inferSelect'];

/** The columns a credential is built from. */
const grantColumns = (table: CredentialTable) => ({
  id: table.id,
  permissions: table.permissions,
  accountIds: table.accountIds,
});

/** The credential of `kind` a row's grant columns describe. */
const credentialOf = (
  kind: Credential['kind'],
  row: { id: string; permissions: string[]; accountIds: string[] | null },
): Credential => ({
  id: row.id,
  kind,
  permissions: row.permissions as Permission[],
  accountIds: row.accountIds ?? null,
});

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** Matches the key `publicKeyHex` (lower-case hex) through the unique index on its SHA-256 (schema.ts). */
const publicKeyIs = (publicKeyHex: string) =>
  and(
    sql`sha256(decode(${mldsaKeys.publicKeyHex}, 'hex')) = sha256(decode(${publicKeyHex}, 'hex'))`,
    eq(mldsaKeys.publicKeyHex, publicKeyHex),
  );

/** The fingerprint of an ML-DSA-65 public key, as svcId is derived (D-031). */
export const mldsaFingerprint = (publicKey: Uint8Array) => toHex(sha3_256(publicKey).subarray(0, 8));

/**
 * D-129: how long an active credential found by authentication is remembered. A change made through this
 * store (revoke, new permissions) takes effect at once; one made by another instance within this time.
 */
export const CREDENTIAL_CACHE_MS = 1_000;
/** At most this many remembered credentials; the oldest goes first. */
const CREDENTIAL_CACHE_SIZE = 10_000;

/** Stores and looks up credentials. */
export class CredentialStore {
  private readonly lastUsedWrites = new Map<string, number>();
  /** Active credentials by lookup key (token hash or public-key digest), with the time they expire here. */
  private readonly recent = new Map<string, { credential: Credential; until: number }>();
  /** Bumped by every change, so a read that started before the change is not remembered after it. */
  private generation = 0;
  /** Told after every change is written (D-170: other instances then drop what they remember). */
  private readonly changeListeners: Array<() => void> = [];

  /** Uses `db`; every time (creation, revocation, last use, the D-129 memory) comes from `clock`. */
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
  ) {}

  /** Issues an API key; the raw token is returned once and only its hash is stored. */
  async createApiKey(grant: CredentialGrant) {
    const token = secretToken('svc_');
    const [row] = await this.db
      .insert(apiKeys)
      .values({
        id: resourceId('key'),
        ...grant,
        tokenSha256: sha256(token),
        tokenPrefix: token.slice(0, 12),
        createdAt: dateOf(this.clock),
      })
      .returning();
    return { row: row!, token };
  }

  /** Every API key, newest first. */
  listApiKeys() {
    return this.db.select().from(apiKeys).orderBy(desc(apiKeys.createdAt));
  }

  /** The API key `id` (active or revoked). */
  findApiKey(id: string) {
    return this.findById(apiKeys, id);
  }

  /** Replaces name, permissions or account list of an API key; undefined when it does not exist. */
  updateApiKey(id: string, patch: Partial<CredentialGrant>) {
    return this.update(apiKeys, id, patch);
  }

  /** Revokes an API key (D-059: kept, with revokedAt); undefined when it does not exist. */
  revokeApiKey(id: string) {
    return this.revoke(apiKeys, id);
  }

  /** Registers an ML-DSA-65 public key; undefined when that key is already registered. */
  async registerMldsaKey(publicKey: Uint8Array, grant: CredentialGrant) {
    const rows = await this.db
      .insert(mldsaKeys)
      .values({ id: resourceId('mlk'), ...grant, publicKeyHex: toHex(publicKey), createdAt: dateOf(this.clock) })
      .onConflictDoNothing()
      .returning();
    return rows[0];
  }

  /** Every ML-DSA key, newest first. */
  listMldsaKeys() {
    return this.db.select().from(mldsaKeys).orderBy(desc(mldsaKeys.createdAt));
  }

  /** The ML-DSA key `id` (active or revoked). */
  findMldsaKeyById(id: string) {
    return this.findById(mldsaKeys, id);
  }

  /** The registration of `publicKeyHex` (lower case), active or revoked: a public key is registered once. */
  async findMldsaKeyByPublicKey(publicKeyHex: string) {
    const [row] = await this.db.select().from(mldsaKeys).where(publicKeyIs(publicKeyHex));
    return row;
  }

  /** Replaces name, permissions or account list of an ML-DSA key. */
  updateMldsaKey(id: string, patch: Partial<CredentialGrant>) {
    return this.update(mldsaKeys, id, patch);
  }

  /** Revokes an ML-DSA key (D-059). */
  revokeMldsaKey(id: string) {
    return this.revoke(mldsaKeys, id);
  }

  /** The active API key whose token is `token`. */
  async findApiKeyByToken(token: string): Promise<Credential | undefined> {
    const tokenSha256 = sha256(token);
    return this.remembered(`key:${tokenSha256}`, () =>
      this.readActive('api_key', eq(apiKeys.tokenSha256, tokenSha256), 'credential_by_token'),
    );
  }

  /** The active ML-DSA key registered as `publicKey` (its 1,952 bytes). */
  async findMldsaKey(publicKey: Uint8Array): Promise<Credential | undefined> {
    // Per request: the SHA-256 is computed here and matched on the unique index (32 bytes sent, not the 3,904
    // hex characters twice), and only the grant comes back. A second preimage of SHA-256 is out of reach, so
    // the digest identifies the key as the index already assumes.
    const digest = createHash('sha256').update(publicKey).digest();
    return this.remembered(`mldsa:${digest.toString('base64')}`, () =>
      this.readActive(
        'mldsa',
        sql`sha256(decode(${mldsaKeys.publicKeyHex}, 'hex')) = ${digest}`,
        'credential_by_mldsa_key',
      ),
    );
  }

  /**
   * The credential `credential` as it stands now, read by id past the D-129 memory; undefined once revoked.
   * D-137: open /ws connections are checked with it every second.
   */
  async findActive(credential: Pick<Credential, 'id' | 'kind'>): Promise<Credential | undefined> {
    const table = TABLES[credential.kind];
    const [row] = await this.db
      .select(grantColumns(table))
      .from(table)
      .where(and(eq(table.id, credential.id), isNull(table.revokedAt)));
    return row && credentialOf(credential.kind, row);
  }

  /**
   * The active credential of `kind` that `match` selects, through the prepared statement `statement`; its
   * last use is recorded.
   */
  private async readActive(kind: Credential['kind'], match: SQL, statement: string): Promise<Credential | undefined> {
    const table = TABLES[kind];
    const [row] = await this.db
      .select(grantColumns(table))
      .from(table)
      .where(and(match, isNull(table.revokedAt)))
      .prepare(statement)
      .execute();
    if (!row) return undefined;
    await this.touch(row.id, () =>
      this.db
        .update(table)
        .set({ lastUsedAt: dateOf(this.clock) })
        .where(eq(table.id, row.id)),
    );
    return credentialOf(kind, row);
  }

  /** The row `id` of `table`, active or revoked. */
  private async findById<T extends CredentialTable>(table: T, id: string): Promise<RowOf<T> | undefined> {
    const from: CredentialTable = table;
    const [row] = await this.db.select().from(from).where(eq(from.id, id));
    return row as RowOf<T> | undefined;
  }

  /** Replaces fields of the row `id` of `table`; undefined when it does not exist. */
  private async update<T extends CredentialTable>(
    table: T,
    id: string,
    patch: Partial<CredentialGrant>,
  ): Promise<RowOf<T> | undefined> {
    this.forgetRecent();
    const into: CredentialTable = table;
    const [row] = await this.db.update(into).set(patch).where(eq(into.id, id)).returning();
    if (row) this.changed();
    return row as RowOf<T> | undefined;
  }

  /** Revokes the row `id` of `table` (D-059: kept, with revokedAt); a revoked row is returned as it is. */
  private async revoke<T extends CredentialTable>(table: T, id: string): Promise<RowOf<T> | undefined> {
    this.forgetRecent();
    const existing = await this.findById(table, id);
    if (!existing || existing.revokedAt) return existing;
    const into: CredentialTable = table;
    const [row] = await this.db
      .update(into)
      .set({ revokedAt: dateOf(this.clock) })
      .where(eq(into.id, id))
      .returning();
    this.changed();
    return row as RowOf<T> | undefined;
  }

  /** A credential looked up within CREDENTIAL_CACHE_MS, or `read` (only active credentials are remembered). */
  private async remembered(key: string, read: () => Promise<Credential | undefined>): Promise<Credential | undefined> {
    const now = this.clock.now();
    const hit = this.recent.get(key);
    if (hit && hit.until > now) return hit.credential;
    const generation = this.generation;
    const credential = await read();
    this.recent.delete(key);
    if (credential && generation === this.generation) {
      if (this.recent.size >= CREDENTIAL_CACHE_SIZE) this.recent.delete(this.recent.keys().next().value!);
      this.recent.set(key, { credential, until: now + CREDENTIAL_CACHE_MS });
    }
    return credential;
  }

  /** Called by every change to a credential: nothing remembered outlives it in this process. */
  private forgetRecent(): void {
    this.generation++;
    this.recent.clear();
  }

  /**
   * Forgets every remembered credential: another instance changed one (D-170). Without this call a change
   * elsewhere still takes effect within CREDENTIAL_CACHE_MS (D-129), since nothing is remembered longer.
   */
  forgetRemembered(): void {
    this.forgetRecent();
  }

  /** Calls `listener` after every change to a credential has been written. */
  onChange(listener: () => void): void {
    this.changeListeners.push(listener);
  }

  private changed(): void {
    for (const listener of this.changeListeners) listener();
  }

  /** Records last use at most once a minute per credential, so authentication stays a single read. */
  private async touch(id: string, write: () => Promise<unknown>): Promise<void> {
    const now = this.clock.now();
    if (now - (this.lastUsedWrites.get(id) ?? 0) < 60_000) return;
    this.lastUsedWrites.set(id, now);
    await write();
  }
}
