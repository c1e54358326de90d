CREATE TABLE "chain_allowlist" (
	"address" text PRIMARY KEY NOT NULL,
	"reason" text NOT NULL,
	"added_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "chain_progress" (
	"id" integer PRIMARY KEY NOT NULL,
	"last_sealed_block" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "qbft_proposals" (
	"target" text PRIMARY KEY NOT NULL,
	"add" boolean NOT NULL,
	"proposed_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "qbft_validator_sets" (
	"from_block" bigint PRIMARY KEY NOT NULL,
	"validators" jsonb NOT NULL
);
--> statement-breakpoint
CREATE TABLE "qbft_votes" (
	"target" text NOT NULL,
	"voter" text NOT NULL,
	"add" boolean NOT NULL,
	"block_number" bigint NOT NULL,
	CONSTRAINT "qbft_votes_target_voter_pk" PRIMARY KEY("target","voter")
);
--> statement-breakpoint
CREATE TABLE "settings" (
	"key" text PRIMARY KEY NOT NULL,
	"value" text NOT NULL
);
