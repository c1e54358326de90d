CREATE TABLE "accounts" (
	"id" text PRIMARY KEY NOT NULL,
	"number" serial NOT NULL,
	"reference" text NOT NULL,
	"email" text NOT NULL,
	"status" text NOT NULL,
	"daily_limit_wei" numeric(78, 0) NOT NULL,
	"single_limit_wei" numeric(78, 0) NOT NULL,
	"address" text NOT NULL,
	"chain_key_ciphertext" "bytea" NOT NULL,
	"mlkem_public_key" "bytea" NOT NULL,
	"mlkem_secret_ciphertext" "bytea" NOT NULL,
	"wrapped_dek" "bytea" NOT NULL,
	"kek_id" text NOT NULL,
	"next_nonce" bigint NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "accounts_number_unique" UNIQUE("number"),
	CONSTRAINT "accounts_reference_unique" UNIQUE("reference"),
	CONSTRAINT "accounts_address_unique" UNIQUE("address")
);
--> statement-breakpoint
CREATE TABLE "api_keys" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"token_sha256" text NOT NULL,
	"token_prefix" text NOT NULL,
	"permissions" jsonb NOT NULL,
	"account_ids" jsonb,
	"created_at" timestamp (3) with time zone NOT NULL,
	"last_used_at" timestamp (3) with time zone,
	"revoked_at" timestamp (3) with time zone,
	CONSTRAINT "api_keys_token_sha256_unique" UNIQUE("token_sha256")
);
--> statement-breakpoint
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
CREATE TABLE "idempotency_keys" (
	"credential_id" text NOT NULL,
	"key" text NOT NULL,
	"request_sha256" text NOT NULL,
	"response_status" integer,
	"response_body" jsonb,
	"created_at" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "idempotency_keys_credential_id_key_pk" PRIMARY KEY("credential_id","key")
);
--> statement-breakpoint
CREATE TABLE "mldsa_keys" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"public_key_hex" text NOT NULL,
	"permissions" jsonb NOT NULL,
	"account_ids" jsonb,
	"created_at" timestamp (3) with time zone NOT NULL,
	"last_used_at" timestamp (3) with time zone,
	"revoked_at" timestamp (3) with time zone,
	CONSTRAINT "mldsa_keys_public_key_hex_unique" UNIQUE("public_key_hex")
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
--> statement-breakpoint
CREATE TABLE "transfers" (
	"tx_ref" text PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"account_id" text,
	"from_address" text NOT NULL,
	"to_address" text NOT NULL,
	"amount_wei" numeric(78, 0) NOT NULL,
	"nonce" bigint NOT NULL,
	"tx_hash" text NOT NULL,
	"signed_tx" text NOT NULL,
	"status" text NOT NULL,
	"fail_reason" text,
	"block_number" bigint,
	"block_timestamp" bigint,
	"broadcast" boolean NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "transfers_tx_hash_unique" UNIQUE("tx_hash")
);
--> statement-breakpoint
CREATE INDEX "transfers_account_created" ON "transfers" USING btree ("account_id","created_at");--> statement-breakpoint
CREATE INDEX "transfers_to_created" ON "transfers" USING btree ("to_address","created_at");--> statement-breakpoint
CREATE INDEX "transfers_status" ON "transfers" USING btree ("status");