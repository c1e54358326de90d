ALTER TABLE "wallet_challenges" DROP CONSTRAINT "wallet_challenges_nonce_unique";--> statement-breakpoint
ALTER TABLE "wallet_challenges" DROP CONSTRAINT "wallet_challenges_address_svc_id_pk";--> statement-breakpoint
ALTER TABLE "wallet_challenges" ADD PRIMARY KEY ("nonce");--> statement-breakpoint
CREATE INDEX "wallet_challenges_identity" ON "wallet_challenges" USING btree ("svc_id","address");--> statement-breakpoint
CREATE INDEX "wallet_challenges_expiry" ON "wallet_challenges" USING btree ("expires_at");