CREATE TABLE "wallet_managed_accounts" (
	"svc_id" text PRIMARY KEY NOT NULL,
	"email" text NOT NULL,
	"auth_kdf" jsonb NOT NULL,
	"verifier_salt" "bytea" NOT NULL,
	"verifier" "bytea" NOT NULL,
	"sealed_share" jsonb NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "wallet_managed_accounts_email_unique" UNIQUE("email")
);
