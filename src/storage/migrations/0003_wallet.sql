CREATE TABLE "wallet_auth_records" (
	"nonce" text PRIMARY KEY NOT NULL,
	"svc_id" text NOT NULL,
	"address" text NOT NULL,
	"message" text NOT NULL,
	"ecdsa_sig" text NOT NULL,
	"pq_sig" "bytea" NOT NULL,
	"verified_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "wallet_banking_authorizations" (
	"id" text PRIMARY KEY NOT NULL,
	"binding_id" text NOT NULL,
	"wallet_svc_id" text NOT NULL,
	"kind" text NOT NULL,
	"amount_minor" bigint NOT NULL,
	"currency" text NOT NULL,
	"counterparty" text NOT NULL,
	"reference" text,
	"status" text NOT NULL,
	"reason" text,
	"created_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "wallet_bindings" (
	"id" text PRIMARY KEY NOT NULL,
	"owner_svc_id" text NOT NULL,
	"wallet_svc_id" text NOT NULL,
	"status" text NOT NULL,
	"currency" text NOT NULL,
	"ceiling_minor" bigint NOT NULL,
	"spent_minor" bigint NOT NULL,
	"allowed_counterparties" jsonb,
	"expires_at" timestamp (3) with time zone NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	"accepted_at" timestamp (3) with time zone,
	"revoked_at" timestamp (3) with time zone,
	"updated_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "wallet_challenges" (
	"address" text NOT NULL,
	"svc_id" text NOT NULL,
	"nonce" text NOT NULL,
	"message" text NOT NULL,
	"expires_at" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "wallet_challenges_address_svc_id_pk" PRIMARY KEY("address","svc_id"),
	CONSTRAINT "wallet_challenges_nonce_unique" UNIQUE("nonce")
);
--> statement-breakpoint
CREATE TABLE "wallet_identities" (
	"svc_id" text PRIMARY KEY NOT NULL,
	"pq_public_key" "bytea" NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "wallet_identity_keys" (
	"svc_id" text NOT NULL,
	"chain_id" text NOT NULL,
	"address" text NOT NULL,
	CONSTRAINT "wallet_identity_keys_svc_id_chain_id_address_pk" PRIMARY KEY("svc_id","chain_id","address")
);
--> statement-breakpoint
CREATE TABLE "wallet_owners" (
	"svc_id" text PRIMARY KEY NOT NULL,
	"kyc_reference" text NOT NULL,
	"kyc_verified_at" timestamp (3) with time zone NOT NULL,
	"updated_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "wallet_sync_devices" (
	"svc_id" text NOT NULL,
	"device_id" text NOT NULL,
	"kem_public_key" "bytea" NOT NULL,
	"label" text,
	"created_at" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "wallet_sync_devices_svc_id_device_id_pk" PRIMARY KEY("svc_id","device_id")
);
--> statement-breakpoint
CREATE TABLE "wallet_sync_envelopes" (
	"svc_id" text NOT NULL,
	"from_device" text NOT NULL,
	"to_device" text NOT NULL,
	"data" "bytea" NOT NULL,
	"version" integer NOT NULL,
	"updated_at" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "wallet_sync_envelopes_svc_id_from_device_to_device_pk" PRIMARY KEY("svc_id","from_device","to_device")
);
--> statement-breakpoint
CREATE INDEX "wallet_banking_authorizations_binding" ON "wallet_banking_authorizations" USING btree ("binding_id","created_at");--> statement-breakpoint
CREATE INDEX "wallet_bindings_wallet" ON "wallet_bindings" USING btree ("wallet_svc_id","created_at");--> statement-breakpoint
CREATE INDEX "wallet_bindings_owner" ON "wallet_bindings" USING btree ("owner_svc_id","created_at");