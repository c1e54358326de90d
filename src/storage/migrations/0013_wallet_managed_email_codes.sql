ALTER TABLE "wallet_managed_accounts" ADD COLUMN "email_verified_at" timestamp (3) with time zone;--> statement-breakpoint
CREATE TABLE "wallet_managed_email_codes" (
	"id" text PRIMARY KEY NOT NULL,
	"email" text NOT NULL,
	"svc_id" text NOT NULL,
	"ip" text NOT NULL,
	"code_hash" "bytea",
	"attempts" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	"expires_at" timestamp (3) with time zone NOT NULL,
	"consumed_at" timestamp (3) with time zone
);
--> statement-breakpoint
CREATE INDEX "wallet_managed_email_codes_email" ON "wallet_managed_email_codes" USING btree ("email","created_at");--> statement-breakpoint
CREATE INDEX "wallet_managed_email_codes_ip" ON "wallet_managed_email_codes" USING btree ("ip","created_at");--> statement-breakpoint
CREATE INDEX "wallet_managed_email_codes_created" ON "wallet_managed_email_codes" USING btree ("created_at");
