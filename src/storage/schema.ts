/**
 * The database schema, one definition for PGlite and PostgreSQL (Drizzle). Migrations in
 * src/storage/migrations/ are generated from it by `npx drizzle-kit generate`.
 */
import { bigint, boolean, integer, jsonb, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';

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
