/**
 * The database schema, one definition for PGlite and PostgreSQL (Drizzle). Migrations in
 * src/storage/migrations/ are generated from it by `npx drizzle-kit generate`.
 */
import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  check,
  customType,
  index,
  integer,
  jsonb,
  numeric,
  pgTable,
  primaryKey,
  serial,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
// The contracts' status unions type these text columns in TypeScript only: the columns and migrations stay as they are.
import type { DeliveryAttempt, DeliveryStatus } from '@svckit/sdk/admin';
import type { TransferStatus } from '@svckit/sdk/institutional';
import type { BankingAuthorization } from '@svckit/sdk/wallet';
import type { PaymentStatus } from '@svckit/sdk/webhooks';

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

/**
 * Leases held by one instance of several on one database (D-183): the block producer's leader lease. The
 * expiry is the database's clock, so the instances' clocks need not agree.
 */
export const leases = pgTable('leases', {
  name: text('name').primaryKey(),
  holder: text('holder').notNull(),
  expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
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
  /** The next transaction nonce; allocated by compare-and-increment in the statement that stores a transfer, so concurrent transfers never collide. */
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

/**
 * Transfers (spec "Transfer (A)"), funding transactions and nonce fillers (D-184: a 0-value self-transfer at
 * the nonce of a failed broadcast that another instance built on); the record is stored before the broadcast.
 */
export const transfers = pgTable(
  'transfers',
  {
    txRef: text('tx_ref').primaryKey(),
    kind: text('kind').$type<'transfer' | 'funding' | 'nonce-filler'>().notNull(),
    /** The sending platform account; null for funding from the genesis account. */
    accountId: text('account_id'),
    fromAddress: text('from_address').notNull(),
    toAddress: text('to_address').notNull(),
    amountWei: numeric('amount_wei', { precision: 78, scale: 0 }).notNull(),
    nonce: bigint('nonce', { mode: 'number' }).notNull(),
    txHash: text('tx_hash').notNull().unique(),
    signedTx: text('signed_tx').notNull(),
    status: text('status').$type<TransferStatus>().notNull(),
    failReason: text('fail_reason'),
    blockNumber: bigint('block_number', { mode: 'number' }),
    blockTimestamp: bigint('block_timestamp', { mode: 'number' }),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date', precision: 3 }).notNull(),
  },
  (t) => [
    index('transfers_account_created').on(t.accountId, t.createdAt),
    index('transfers_to_created').on(t.toAddress, t.createdAt),
    index('transfers_status').on(t.status),
    // The confirmer's pass in its order over the pending records only, however many are settled (D-179).
    index('transfers_pending_created').on(t.createdAt, t.txRef).where(sql`${t.status} = 'pending'`),
  ],
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

/**
 * Payments (spec "Payment event payload (B)"): one per accepted POST /transfers and per pacs.008 instruction
 * (D-021, D-053). Amounts are decimal strings (house rule 5: never floats inside); status per D-007.
 */
export const payments = pgTable(
  'payments',
  {
    uetr: text('uetr').primaryKey(),
    txRef: text('tx_ref').notNull().unique(),
    source: text('source').$type<'transfer' | 'pacs008'>().notNull(),
    status: text('status').$type<PaymentStatus>().notNull(),
    instrAmtCcy: text('instr_amt_ccy').notNull(),
    instrAmt: text('instr_amt').notNull(),
    settlAmtCcy: text('settl_amt_ccy'),
    settlAmt: text('settl_amt'),
    dbtrInst: text('dbtr_inst').notNull(),
    cdtrInst: text('cdtr_inst').notNull(),
    /** The account that pays (POST /transfers: the sender; pacs.008: sttlmAcct). */
    debtorAccountId: text('debtor_account_id').notNull(),
    /** The platform account credited, when the creditor is on the platform. */
    creditorAccountId: text('creditor_account_id'),
    /** The settling transfer (transfers.tx_ref); set in the transaction that stores it. */
    transferTxRef: text('transfer_tx_ref').unique(),
    onChainTxHash: text('on_chain_tx_hash'),
    sttlmTm: text('sttlm_tm'),
    failRsn: text('fail_rsn'),
    /** The pacs.008 projection as received (D-056); null for POST /transfers. */
    instruction: jsonb('instruction').$type<Record<string, unknown>>(),
    /** The return transfer in progress or done (D-062). */
    returnTxRef: text('return_tx_ref').unique(),
    returnTxHash: text('return_tx_hash'),
    returnReason: text('return_reason'),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date', precision: 3 }).notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date', precision: 3 }).notNull(),
  },
  (t) => [index('payments_open').on(t.source, t.status)],
);

/** Registered webhook endpoints (D-019, D-060); secrets are never returned by the API (D-047). */
export const webhookEndpoints = pgTable('webhook_endpoints', {
  id: text('id').primaryKey(),
  url: text('url').notNull(),
  description: text('description').notNull(),
  events: jsonb('events').$type<string[]>().notNull(),
  /**
   * D-142: the accounts of the institution that registered the endpoint; it receives only the events of
   * payments on those accounts. Empty for an endpoint an older svckit stored, which receives nothing.
   */
  accountIds: jsonb('account_ids').$type<string[]>().notNull().default([]),
  enabled: boolean('enabled').notNull(),
  secret: text('secret'),
  previousSecret: text('previous_secret'),
  previousSecretExpiresAt: timestamp('previous_secret_expires_at', { withTimezone: true, mode: 'date', precision: 3 }),
  secretUpdatedAt: timestamp('secret_updated_at', { withTimezone: true, mode: 'date', precision: 3 }),
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date', precision: 3 }).notNull(),
  updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date', precision: 3 }).notNull(),
});

/**
 * The transactional outbox: one row per payment event, written in the transaction of the state change that
 * causes it. `body` is the exact compact JSON that is signed and sent (text: jsonb would reorder the keys).
 */
export const webhookEvents = pgTable('webhook_events', {
  id: text('id').primaryKey(),
  type: text('type').notNull(),
  uetr: text('uetr').notNull(),
  body: text('body').notNull(),
  /** D-142: the payment's debtor account, whose institution's endpoints receive the event (null before D-142). */
  debtorAccountId: text('debtor_account_id'),
  /** D-142: the payment's creditor account when it is on the platform (null for an external creditor). */
  creditorAccountId: text('creditor_account_id'),
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date', precision: 3 }).notNull(),
});

/**
 * One delivery job per (event, subscribed endpoint); `id` is X-SVC-Delivery (D-039). A dispatcher claims a
 * due job with `FOR UPDATE SKIP LOCKED` and holds it by lease until its attempt is recorded.
 */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: text('id').primaryKey(),
    eventId: text('event_id').notNull(),
    endpointId: text('endpoint_id').notNull(),
    event: text('event').notNull(),
    uetr: text('uetr').notNull(),
    status: text('status').$type<DeliveryStatus>().notNull(),
    round: integer('round').notNull(),
    /** Attempts made in the current round (0 to 5). */
    attempts: integer('attempts').notNull(),
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true, mode: 'date', precision: 3 }),
    leaseOwner: text('lease_owner'),
    leaseUntil: timestamp('lease_until', { withTimezone: true, mode: 'date', precision: 3 }),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date', precision: 3 }).notNull(),
    deliveredAt: timestamp('delivered_at', { withTimezone: true, mode: 'date', precision: 3 }),
  },
  (t) => [
    // Partial: the claim reads pending jobs in due order and stops after its LIMIT, whatever the backlog.
    index('webhook_deliveries_due').on(t.nextAttemptAt).where(sql`${t.status} = 'pending'`),
    index('webhook_deliveries_endpoint').on(t.endpointId, t.createdAt),
    index('webhook_deliveries_created').on(t.createdAt),
  ],
);

/** Every delivery attempt (D-052 timing; D-060 rounds). */
export const webhookAttempts = pgTable(
  'webhook_attempts',
  {
    deliveryId: text('delivery_id').notNull(),
    round: integer('round').notNull(),
    number: integer('number').notNull(),
    startedAt: timestamp('started_at', { withTimezone: true, mode: 'date', precision: 3 }).notNull(),
    durationMs: integer('duration_ms').notNull(),
    responseStatus: integer('response_status'),
    error: text('error'),
    outcome: text('outcome').$type<DeliveryAttempt['outcome']>().notNull(),
    /** The X-SVC-Timestamp the attempt was signed with (never reused: a fresh one per attempt). */
    signedAt: bigint('signed_at', { mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.deliveryId, t.round, t.number] })],
);

// ---- Wallet session API (surface E). spec rule 2: "The service stores only public keys and ciphertext it
// cannot read. It holds nothing that it can spend." Every column below is public or ciphertext.

/** Registered wallet identities: the svcId and the ML-DSA-65 public key it is the fingerprint of (D-030, D-031). */
export const walletIdentities = pgTable('wallet_identities', {
  svcId: text('svc_id').primaryKey(),
  pqPublicKey: bytea('pq_public_key').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date', precision: 3 }).notNull(),
});

/** Public chain addresses an identity registered (D-030 `keys`, D-069: new ones are added). */
export const walletIdentityKeys = pgTable(
  'wallet_identity_keys',
  { svcId: text('svc_id').notNull(), chainId: text('chain_id').notNull(), address: text('address').notNull() },
  (t) => [primaryKey({ columns: [t.svcId, t.chainId, t.address] })],
);

/**
 * Outstanding challenges, keyed by their nonce (D-145): several per (address, svcId); D-208 counts them per
 * (svcId, address), per client IP within it, per client IP and in all; verify deletes the one whose message
 * both signatures sign.
 */
export const walletChallenges = pgTable(
  'wallet_challenges',
  {
    address: text('address').notNull(),
    svcId: text('svc_id').notNull(),
    nonce: text('nonce').primaryKey(),
    message: text('message').notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date', precision: 3 }).notNull(),
    /** The client IP that asked (D-208); '' for challenges stored before it was kept. */
    ip: text('ip').notNull().default(''),
  },
  (t) => [
    index('wallet_challenges_identity').on(t.svcId, t.address),
    index('wallet_challenges_expiry').on(t.expiresAt),
    index('wallet_challenges_ip').on(t.ip, t.expiresAt),
  ],
);

/** Authorisation records: the signed challenge of every successful login (D-081). */
export const walletAuthRecords = pgTable('wallet_auth_records', {
  nonce: text('nonce').primaryKey(),
  svcId: text('svc_id').notNull(),
  address: text('address').notNull(),
  message: text('message').notNull(),
  ecdsaSig: text('ecdsa_sig').notNull(),
  pqSig: bytea('pq_sig').notNull(),
  verifiedAt: timestamp('verified_at', { withTimezone: true, mode: 'date', precision: 3 }).notNull(),
});

/** Sync devices: public ML-KEM-768 keys only (D-082). */
export const walletSyncDevices = pgTable(
  'wallet_sync_devices',
  {
    svcId: text('svc_id').notNull(),
    deviceId: text('device_id').notNull(),
    kemPublicKey: bytea('kem_public_key').notNull(),
    label: text('label'),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date', precision: 3 }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.svcId, t.deviceId] })],
);

/** The latest sealed envelope per (sender, recipient) device pair: ciphertext the server cannot open (D-082). */
export const walletSyncEnvelopes = pgTable(
  'wallet_sync_envelopes',
  {
    svcId: text('svc_id').notNull(),
    fromDevice: text('from_device').notNull(),
    toDevice: text('to_device').notNull(),
    data: bytea('data').notNull(),
    version: integer('version').notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date', precision: 3 }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.svcId, t.fromDevice, t.toDevice] })],
);

/**
 * D-217: the bytes sync holds in all (envelopes, device keys and labels), one row kept by the triggers of
 * migration 0012 on both sync tables, so no write or delete path can leave it out of step.
 */
export const walletSyncUsage = pgTable(
  'wallet_sync_usage',
  {
    id: integer('id').primaryKey(),
    bytes: bigint('bytes', { mode: 'number' }).notNull(),
  },
  (t) => [
    check('wallet_sync_usage_one_row', sql`${t.id} = 1`),
    check('wallet_sync_usage_not_negative', sql`${t.bytes} >= 0`),
  ],
);

/** D-218: sync bytes each client IP (an IPv6 /64) wrote, per hour; rows older than a day are purged. */
export const walletSyncIpWrites = pgTable(
  'wallet_sync_ip_writes',
  {
    ipKey: text('ip_key').notNull(),
    hour: timestamp('hour', { withTimezone: true, mode: 'date', precision: 3 }).notNull(),
    bytes: bigint('bytes', { mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.ipKey, t.hour] })],
);

/** D-219: which client IP registered each new identity, kept for the counting window only. */
export const walletIdentityOrigins = pgTable(
  'wallet_identity_origins',
  {
    svcId: text('svc_id').primaryKey(),
    ipKey: text('ip_key').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date', precision: 3 }).notNull(),
  },
  (t) => [index('wallet_identity_origins_ip').on(t.ipKey, t.createdAt)],
);

/** KYC-verified owners recorded by the operating institution: its reference only, no personal data (D-083). */
export const walletOwners = pgTable('wallet_owners', {
  svcId: text('svc_id').primaryKey(),
  kycReference: text('kyc_reference').notNull(),
  kycVerifiedAt: timestamp('kyc_verified_at', { withTimezone: true, mode: 'date', precision: 3 }).notNull(),
  updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date', precision: 3 }).notNull(),
});

/** Owner bindings (spec rule 4; D-084). Amounts in minor units of `currency` (house rule 5: never floats). */
export const walletBindings = pgTable(
  'wallet_bindings',
  {
    id: text('id').primaryKey(),
    ownerSvcId: text('owner_svc_id').notNull(),
    walletSvcId: text('wallet_svc_id').notNull(),
    status: text('status').$type<'pending' | 'active' | 'revoked'>().notNull(),
    currency: text('currency').notNull(),
    ceilingMinor: bigint('ceiling_minor', { mode: 'bigint' }).notNull(),
    spentMinor: bigint('spent_minor', { mode: 'bigint' }).notNull(),
    allowedCounterparties: jsonb('allowed_counterparties').$type<string[] | null>(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date', precision: 3 }).notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date', precision: 3 }).notNull(),
    acceptedAt: timestamp('accepted_at', { withTimezone: true, mode: 'date', precision: 3 }),
    revokedAt: timestamp('revoked_at', { withTimezone: true, mode: 'date', precision: 3 }),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date', precision: 3 }).notNull(),
  },
  (t) => [
    index('wallet_bindings_wallet').on(t.walletSvcId, t.createdAt),
    index('wallet_bindings_owner').on(t.ownerSvcId, t.createdAt),
  ],
);

/** Banking authorisations asked under a binding, approved or refused: the owner's activity view (D-085). */
export const walletBankingAuthorizations = pgTable(
  'wallet_banking_authorizations',
  {
    id: text('id').primaryKey(),
    bindingId: text('binding_id').notNull(),
    walletSvcId: text('wallet_svc_id').notNull(),
    kind: text('kind').notNull(),
    amountMinor: bigint('amount_minor', { mode: 'bigint' }).notNull(),
    currency: text('currency').notNull(),
    counterparty: text('counterparty').notNull(),
    reference: text('reference'),
    status: text('status').$type<BankingAuthorization['status']>().notNull(),
    reason: text('reason'),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date', precision: 3 }).notNull(),
  },
  (t) => [index('wallet_banking_authorizations_binding').on(t.bindingId, t.createdAt)],
);

/**
 * Managed accounts (spec rule 8, D-127): at most one per identity (the primary key) and per normalised email.
 * The service holds the password-sealed service share (a keystore file it cannot open), the client's
 * Argon2id salt and parameters (public), and a scrypt hash of the client's auth key — never the password.
 */
export const walletManagedAccounts = pgTable('wallet_managed_accounts', {
  svcId: text('svc_id').primaryKey(),
  email: text('email').notNull().unique(),
  authKdf: jsonb('auth_kdf')
    .$type<{ memoryKiB: number; passes: number; parallelism: number; salt: string }>()
    .notNull(),
  verifierSalt: bytea('verifier_salt').notNull(),
  verifier: bytea('verifier').notNull(),
  sealedShare: jsonb('sealed_share').$type<Record<string, unknown>>().notNull(),
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date', precision: 3 }).notNull(),
  /** D-210: when the email was proven by a code; null for accounts opened before the proof existed. */
  emailVerifiedAt: timestamp('email_verified_at', { withTimezone: true, mode: 'date', precision: 3 }),
});

/**
 * One-time codes that prove control of an email before a managed account is bound to it (D-210). A row is
 * kept for every request, also when the email was taken and a notice went out instead (`codeHash` null), so
 * the per-email and per-IP bounds count both alike. Only an HMAC of the code is stored.
 */
export const walletManagedEmailCodes = pgTable(
  'wallet_managed_email_codes',
  {
    id: text('id').primaryKey(),
    email: text('email').notNull(),
    svcId: text('svc_id').notNull(),
    ip: text('ip').notNull(),
    codeHash: bytea('code_hash'),
    attempts: integer('attempts').notNull().default(0),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date', precision: 3 }).notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date', precision: 3 }).notNull(),
    consumedAt: timestamp('consumed_at', { withTimezone: true, mode: 'date', precision: 3 }),
  },
  (t) => [
    index('wallet_managed_email_codes_email').on(t.email, t.createdAt),
    index('wallet_managed_email_codes_ip').on(t.ip, t.createdAt),
    index('wallet_managed_email_codes_created').on(t.createdAt),
  ],
);
