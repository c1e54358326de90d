ALTER TABLE "webhook_endpoints" ADD COLUMN "account_ids" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "webhook_events" ADD COLUMN "debtor_account_id" text;--> statement-breakpoint
ALTER TABLE "webhook_events" ADD COLUMN "creditor_account_id" text;