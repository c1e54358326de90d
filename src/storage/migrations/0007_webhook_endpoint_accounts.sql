ALTER TABLE "webhook_endpoints" ADD COLUMN "account_ids" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "webhook_events" ADD COLUMN "debtor_account_id" text;--> statement-breakpoint
ALTER TABLE "webhook_events" ADD COLUMN "creditor_account_id" text;--> statement-breakpoint
-- D-142: jobs queued before endpoints had owners went to every endpoint; none of them is sent any more.
UPDATE "webhook_deliveries" SET "status" = 'dead', "next_attempt_at" = NULL, "lease_owner" = NULL, "lease_until" = NULL WHERE "status" = 'pending';
