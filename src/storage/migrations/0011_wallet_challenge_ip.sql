ALTER TABLE "wallet_challenges" ADD COLUMN "ip" text DEFAULT '' NOT NULL;--> statement-breakpoint
CREATE INDEX "wallet_challenges_ip" ON "wallet_challenges" USING btree ("ip","expires_at");
