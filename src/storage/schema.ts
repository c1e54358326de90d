/**
 * The database schema, one definition for PGlite and PostgreSQL (Drizzle). Migrations in
 * src/storage/migrations/ are generated from it by `npx drizzle-kit generate`.
 */
import { sql } from 'drizzle-orm';
import { bigint, boolean, customType, index, integer, jsonb, numeric, pgTable, primaryKey, serial, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';

/** PostgreSQL bytea as Uint8Array (PGlite and node-postgres both return binary data for it). */
const bytea = customType<{ data: Uint8Array; driverData: Uint8Array }>({ dataType: () => 'bytea' });

/** Single-row settings: the admin token hash (D-048) and values fixed at first start. */
export const settings = pgTable('settings', {
  key: text('key').primaryKey(),
  value: text('value').notNull(),
});

/** QBFT validator set from `fromBlock` on (D-037: a passed vote changes the set from the next block). */
export const qbftValidatorSets = pgTable('qbft_validator_sets', {
  fromBlock: bigint('from_block', { mode: 'number' }).primaryKey(),
  validators: jsonb('validators').$type<string[]>().notNull(),
});

/** Pending validator vote proposals, held by every validator node (D-063). */
export const qbftProposals = pgTable('qbft_proposals', {
  target: text('target').primaryKey(),
  add: boolean('add').notNull(),
  proposedAt: timestamp('proposed_at', { withTimezone: true, mode: 'date' }).notNull(),
});

/** Votes cast in blocks: the proposer of `blockNumber` voted to add or remove `target`. */
export const qbftVotes = pgTable(
  'qbft_votes',
  {
    target: text('target').notNull(),
    voter: text('voter').notNull(),
    add: boolean('add').notNull(),
    blockNumber: bigint('block_number', { mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.target, t.voter] })],
);

/** Senders allowed to write to the chain (D-050: the permissioned chain's funded accounts). */
export const chainAllowlist = pgTable('chain_allowlist', {
  address: text('address').primaryKey(),
  reason: text('reason').notNull(),
  addedAt: timestamp('added_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
});

/** Last block the block producer sealed, so a restart continues the proposer rotation. */
export const chainProgress = pgTable('chain_progress', {
  id: integer('id').primaryKey(),
  lastSealedBlock: bigint('last_sealed_block', { mode: 'number' }).notNull(),
});

/** Institutional accounts (spec "Account (A)"); keys are encrypted at rest (envelope: DEK under the KEK). */
export const accounts = pgTable('accounts', {
  id: text('id').primaryKey(),
  /** Source of the human-readable reference `ACC-` + 10 digits (D-036). */
  number: serial('number').notNull().unique(),
  reference: text('reference').notNull().unique(),
  email: text('email').notNull(),
  status: text('status').notNull(),
  dailyLimitWei: numeric('daily_limit_wei', { precision: 78, scale: 0 }).notNull(),
  singleLimitWei: numeric('single_limit_wei', { precision: 78, scale: 0 }).notNull(),
  address: text('address').notNull().unique(),
  /** The secp256k1 private key, AES-256-GCM under the account's data-encryption key. */
  chainKeyCiphertext: bytea('chain_key_ciphertext').notNull(),
  /** The ML-KEM-768 key pair for memo envelopes (D-032): public in clear, secret under the DEK. */
  mlkemPublicKey: bytea('mlkem_public_key').notNull(),
  mlkemSecretCiphertext: bytea('mlkem_secret_ciphertext').notNull(),
  /** The data-encryption key wrapped (AES-256-GCM) by the key-encryption key `kekId`. */
  wrappedDek: bytea('wrapped_dek').notNull(),
  kekId: text('kek_id').notNull(),
  /** The next transaction nonce; allocated under a row lock so concurrent transfers never collide. */
  nextNonce: bigint('next_nonce', { mode: 'number' }).notNull(),
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date', precision: 3 }).notNull(),
});

/** Bearer API keys (`svc_…`), stored only as SHA-256 hashes (spec: "the raw token is displayed once"). */
export const apiKeys = pgTable('api_keys', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  tokenSha256: text('token_sha256').notNull().unique(),
  tokenPrefix: text('token_prefix').notNull(),
  permissions: jsonb('permissions').$type<string[]>().notNull(),
  accountIds: jsonb('account_ids').$type<string[] | null>(),
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date', precision: 3 }).notNull(),
  lastUsedAt: timestamp('last_used_at', { withTimezone: true, mode: 'date', precision: 3 }),
  revokedAt: timestamp('revoked_at', { withTimezone: true, mode: 'date', precision: 3 }),
});

/**
 * Registered ML-DSA-65 public keys (spec: "The server stores no secret, only the public key"). A key is
 * registered once; uniqueness is on its SHA-256, since 3,904 hex characters exceed PostgreSQL's B-tree
 * entry limit (2,704 bytes).
 */
export const mldsaKeys = pgTable(
  'mldsa_keys',
  {
    id: text('id').primaryKey(),
    name: text('name').notNull(),
    publicKeyHex: text('public_key_hex').notNull(),
    permissions: jsonb('permissions').$type<string[]>().notNull(),
    accountIds: jsonb('account_ids').$type<string[] | null>(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date', precision: 3 }).notNull(),
    lastUsedAt: timestamp('last_used_at', { withTimezone: true, mode: 'date', precision: 3 }),
    revokedAt: timestamp('revoked_at', { withTimezone: true, mode: 'date', precision: 3 }),
  },
  (t) => [uniqueIndex('mldsa_keys_public_key_sha256').on(sql`sha256(decode(${t.publicKeyHex}, 'hex'))`)],
);

/** Transfers (spec "Transfer (A)") and funding transactions; the record is stored before the broadcast. */
export const transfers = pgTable(
  'transfers',
  {
    txRef: text('tx_ref').primaryKey(),
    kind: text('kind').$type<'transfer' | 'funding'>().notNull(),
    /** The sending platform account; null for funding from the genesis account. */
    accountId: text('account_id'),
    fromAddress: text('from_address').notNull(),
    toAddress: text('to_address').notNull(),
    amountWei: numeric('amount_wei', { precision: 78, scale: 0 }).notNull(),
    nonce: bigint('nonce', { mode: 'number' }).notNull(),
    txHash: text('tx_hash').notNull().unique(),
    signedTx: text('signed_tx').notNull(),
    status: text('status').$type<'pending' | 'confirmed' | 'failed'>().notNull(),
    failReason: text('fail_reason'),
    blockNumber: bigint('block_number', { mode: 'number' }),
    blockTimestamp: bigint('block_timestamp', { mode: 'number' }),
    /** Whether the node accepted the transaction; false until the broadcast succeeded. */
    broadcast: boolean('broadcast').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date', precision: 3 }).notNull(),
  },
  (t) => [index('transfers_account_created').on(t.accountId, t.createdAt), index('transfers_to_created').on(t.toAddress, t.createdAt), index('transfers_status').on(t.status)],
);

/** Idempotency-Key records of POST /transfers (D-046), per credential, kept 24 hours. */
export const idempotencyKeys = pgTable(
  'idempotency_keys',
  {
    credentialId: text('credential_id').notNull(),
    key: text('key').notNull(),
    requestSha256: text('request_sha256').notNull(),
    responseStatus: integer('response_status'),
    responseBody: jsonb('response_body'),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date', precision: 3 }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.credentialId, t.key] })],
);
