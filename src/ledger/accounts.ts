/**
 * Institutional accounts (spec "Account (A)"; D-001, D-002, D-008, D-036). Creating an account generates
 * its chain key pair and its ML-KEM-768 memo key pair; both secrets are encrypted at rest with a per-account
 * data-encryption key (DEK), itself wrapped by the key-encryption key (KEK) of the keyring.
 */
import { randomBytes } from 'node:crypto';
import { and, asc, count, desc, eq, inArray, or, sql, type SQL } from 'drizzle-orm';
import { getAddress, toHex, type Hex, type TransactionSerializableLegacy } from 'viem';
import { generatePrivateKey, privateKeyToAccount, signTransaction, type PrivateKeyAccount } from 'viem/accounts';
import { aes256Gcm, mlKem768 } from '@svckit/sdk/crypto';
import type { Database } from '../storage/database.ts';
import { accounts } from '../storage/schema.ts';
import { resourceId } from './ids.ts';
import type { Keyring } from './keyring.ts';
import { KeyedMutex } from './transfers/locks.ts';

/** The human-readable reference of account number `n` (D-036: `ACC-` + 10 digits). */
const accountReference = (n: number) => `ACC-${String(n).padStart(10, '0')}`;

/** How many account addresses {@link AccountStore.addressOf} remembers; the oldest goes first. */
const ADDRESS_CACHE_SIZE = 10_000;

/** An account row. */
export type AccountRow = typeof accounts.$inferSelect;

/** D-001 statuses and the D-008 transitions between them. */
export const ACCOUNT_TRANSITIONS: Record<string, readonly string[]> = {
  approved: ['suspended', 'closed'],
  suspended: ['approved', 'closed'],
  closed: [],
};

const seal = (key: Uint8Array, plaintext: Uint8Array, aad: string) => {
  const nonce = randomBytes(12);
  return Buffer.concat([nonce, aes256Gcm.encrypt(key, nonce, plaintext, new TextEncoder().encode(aad))]);
};
const open = (key: Uint8Array, sealed: Uint8Array, aad: string) =>
  aes256Gcm.decrypt(key, sealed.subarray(0, 12), sealed.subarray(12), new TextEncoder().encode(aad));

/** Reads and writes accounts; decrypts keys only to sign. */
export class AccountStore {
  /** Creation wraps under the active KEK; rotation must not drop that KEK before the new row is committed. */
  private readonly kekLock = new KeyedMutex();
  /** Account id to chain address, see {@link addressOf}. */
  private readonly addresses = new Map<string, Hex>();

  /** Uses `db` and the `keyring` for keys at rest. */
  constructor(
    private readonly db: Database,
    private readonly keyring: Keyring,
    /** Other KEK-sealed data that a rotation re-seals in the same transaction (webhook secrets, D-130). */
    private readonly rewrapWithKek?: (tx: Database) => Promise<unknown>,
  ) {}

  /** Creates an approved account with fresh keys (D-008: an account is created approved). */
  async create(
    input: { email: string; dailyLimitWei: bigint; singleLimitWei: bigint; reference?: string },
    now: Date,
  ): Promise<AccountRow> {
    return this.kekLock.run('kek', () => this.insert(input, now));
  }

  private async insert(
    input: { email: string; dailyLimitWei: bigint; singleLimitWei: bigint; reference?: string },
    now: Date,
  ): Promise<AccountRow> {
    const chainKey = generatePrivateKey();
    const memoKeys = mlKem768.keygen();
    const dek = randomBytes(32);
    const id = resourceId('acc');
    const { kekId, wrapped } = this.keyring.wrap(dek);
    return this.db.transaction(async (tx) => {
      const [row] = await tx
        .insert(accounts)
        .values({
          id,
          reference: input.reference ?? id,
          email: input.email,
          status: 'approved',
          dailyLimitWei: input.dailyLimitWei.toString(),
          singleLimitWei: input.singleLimitWei.toString(),
          address: privateKeyToAccount(chainKey).address,
          chainKeyCiphertext: seal(dek, Buffer.from(chainKey.slice(2), 'hex'), `${id}/chain`),
          mlkemPublicKey: memoKeys.publicKey,
          mlkemSecretCiphertext: seal(dek, memoKeys.secretKey, `${id}/mlkem`),
          wrappedDek: wrapped,
          kekId,
          nextNonce: 0,
          createdAt: now,
        })
        .returning();
      if (input.reference) return row!;
      // An administrator may have chosen ACC-<n> for an earlier account (optional reference): skip taken numbers.
      let number = row!.number;
      const taken = async (n: number) =>
        (
          await tx
            .select({ id: accounts.id })
            .from(accounts)
            .where(eq(accounts.reference, accountReference(n)))
        ).length > 0;
      while (await taken(number)) {
        // PGlite and node-postgres both answer raw SQL with `{ rows }`.
        const next = (await tx.execute(
          sql`select nextval(pg_get_serial_sequence('accounts', 'number'))::int as n`,
        )) as unknown as { rows: { n: number }[] };
        number = Number(next.rows[0]!.n);
      }
      const [updated] = await tx
        .update(accounts)
        .set({ number, reference: accountReference(number) })
        .where(eq(accounts.id, id))
        .returning();
      return updated!;
    });
  }

  /** The account whose id or reference is `idOrReference` (D-036: both formats are accepted in paths). */
  async find(idOrReference: string): Promise<AccountRow | undefined> {
    const [row] = await this.db
      .select()
      .from(accounts)
      .where(or(eq(accounts.id, idOrReference), eq(accounts.reference, idOrReference)))
      .prepare('account_by_id_or_reference')
      .execute();
    return row;
  }

  /**
   * The chain address of account `id` (an id, not a reference), or undefined when there is no such account.
   * An address never changes once the account exists, so it is remembered (POST /transfers reads the node
   * with it before it reads and stores the transfer).
   */
  async addressOf(id: string): Promise<Hex | undefined> {
    const known = this.addresses.get(id);
    if (known) return known;
    const [row] = await this.db.select({ address: accounts.address }).from(accounts).where(eq(accounts.id, id));
    if (!row) return undefined;
    if (this.addresses.size >= ADDRESS_CACHE_SIZE) this.addresses.delete(this.addresses.keys().next().value!);
    this.addresses.set(id, row.address as Hex);
    return row.address as Hex;
  }

  /** The account that owns `address`, if it is on the platform. */
  async findByAddress(address: Hex): Promise<AccountRow | undefined> {
    const [row] = await this.db
      .select()
      .from(accounts)
      .where(eq(accounts.address, getAddress(address)));
    return row;
  }

  /** One page of accounts, newest first; `ids` limits it to a credential's accounts, `status` to one status. */
  async page(
    page: number,
    limit: number,
    ids: string[] | null,
    status?: string,
  ): Promise<{ total: number; rows: AccountRow[] }> {
    const where: SQL | undefined = and(
      ids === null ? undefined : inArray(accounts.id, ids.length ? ids : ['']),
      status === undefined ? undefined : eq(accounts.status, status),
    );
    const [{ total } = { total: 0 }] = await this.db.select({ total: count() }).from(accounts).where(where);
    const rows = await this.db
      .select()
      .from(accounts)
      .where(where)
      .orderBy(desc(accounts.createdAt), asc(accounts.number))
      .limit(limit)
      .offset((page - 1) * limit);
    return { total, rows };
  }

  /**
   * Applies a status change (D-008) or new limits; returns the updated row. With `fromStatus` the row is only
   * changed while it still has that status (undefined otherwise), so a checked transition cannot race another.
   */
  async update(
    id: string,
    patch: { status?: string; dailyLimitWei?: bigint; singleLimitWei?: bigint; fromStatus?: string },
  ): Promise<AccountRow | undefined> {
    const [row] = await this.db
      .update(accounts)
      .set({
        ...(patch.status ? { status: patch.status } : {}),
        ...(patch.dailyLimitWei !== undefined ? { dailyLimitWei: patch.dailyLimitWei.toString() } : {}),
        ...(patch.singleLimitWei !== undefined ? { singleLimitWei: patch.singleLimitWei.toString() } : {}),
      })
      .where(
        and(eq(accounts.id, id), patch.fromStatus === undefined ? undefined : eq(accounts.status, patch.fromStatus)),
      )
      .returning();
    return row;
  }

  /** The account's chain signer (the private key is decrypted for this use only). */
  signer(row: AccountRow): PrivateKeyAccount {
    const dek = this.keyring.unwrap(row.kekId, row.wrappedDek);
    return privateKeyToAccount(toHex(open(dek, row.chainKeyCiphertext, `${row.id}/chain`)));
  }

  /**
   * Signs `transaction` with the account's chain key, decrypted for this one signature. Cheaper than
   * {@link signer}: the address is known, so the public key is not derived again.
   */
  /**
   * Whether `row`'s keys can still be opened: false when it was read before a KEK rotation that has since
   * re-wrapped its DEK and dropped the old KEK (D-061); reading the row again gives the current wrap.
   */
  keysReadable(row: Pick<AccountRow, 'kekId'>): boolean {
    return this.keyring.holds(row.kekId);
  }

  signTransaction(row: AccountRow, transaction: TransactionSerializableLegacy): Promise<Hex> {
    const dek = this.keyring.unwrap(row.kekId, row.wrappedDek);
    return signTransaction({ privateKey: toHex(open(dek, row.chainKeyCiphertext, `${row.id}/chain`)), transaction });
  }

  /** The account's ML-KEM-768 decapsulation key, to open memo envelopes sent to it (D-032). */
  memoSecretKey(row: AccountRow): Uint8Array {
    const dek = this.keyring.unwrap(row.kekId, row.wrappedDek);
    return open(dek, row.mlkemSecretCiphertext, `${row.id}/mlkem`);
  }

  /**
   * Rotates the KEK (D-061): a new KEK becomes active, every DEK (and every webhook secret, D-130) is
   * re-wrapped in one database transaction, and only then is the old KEK dropped — a crash in between
   * leaves both keys in the keyring.
   */
  async rotateKek(): Promise<{ previousKekId: string; kekId: string; rewrapped: number }> {
    return this.kekLock.run('kek', () => this.rewrap());
  }

  private async rewrap(): Promise<{ previousKekId: string; kekId: string; rewrapped: number }> {
    const { previous, next } = this.keyring.addActive();
    const rewrapped = await this.db.transaction(async (tx) => {
      const rows = await tx
        .select({ id: accounts.id, kekId: accounts.kekId, wrappedDek: accounts.wrappedDek })
        .from(accounts)
        .for('update');
      for (const row of rows) {
        const { kekId, wrapped } = this.keyring.wrap(this.keyring.unwrap(row.kekId, row.wrappedDek));
        await tx.update(accounts).set({ kekId, wrappedDek: wrapped }).where(eq(accounts.id, row.id));
      }
      await this.rewrapWithKek?.(tx as unknown as Database);
      return rows.length;
    });
    this.keyring.retainActiveOnly();
    return { previousKekId: previous, kekId: next, rewrapped };
  }
}
