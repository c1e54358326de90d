CREATE TABLE "payments" (
	"uetr" text PRIMARY KEY NOT NULL,
	"tx_ref" text NOT NULL,
	"source" text NOT NULL,
	"status" text NOT NULL,
	"instr_amt_ccy" text NOT NULL,
	"instr_amt" text NOT NULL,
	"settl_amt_ccy" text,
	"settl_amt" text,
	"dbtr_inst" text NOT NULL,
	"cdtr_inst" text NOT NULL,
	"debtor_account_id" text NOT NULL,
	"creditor_account_id" text,
	"transfer_tx_ref" text,
	"on_chain_tx_hash" text,
	"sttlm_tm" text,
	"fail_rsn" text,
	"instruction" jsonb,
	"return_tx_ref" text,
	"return_tx_hash" text,
	"return_reason" text,
	"created_at" timestamp (3) with time zone NOT NULL,
	"updated_at" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "payments_tx_ref_unique" UNIQUE("tx_ref"),
	CONSTRAINT "payments_transfer_tx_ref_unique" UNIQUE("transfer_tx_ref"),
	CONSTRAINT "payments_return_tx_ref_unique" UNIQUE("return_tx_ref")
);
--> statement-breakpoint
CREATE TABLE "webhook_attempts" (
	"delivery_id" text NOT NULL,
	"round" integer NOT NULL,
	"number" integer NOT NULL,
	"started_at" timestamp (3) with time zone NOT NULL,
	"duration_ms" integer NOT NULL,
	"response_status" integer,
	"error" text,
	"outcome" text NOT NULL,
	"signed_at" bigint NOT NULL,
	CONSTRAINT "webhook_attempts_delivery_id_round_number_pk" PRIMARY KEY("delivery_id","round","number")
);
--> statement-breakpoint
CREATE TABLE "webhook_deliveries" (
	"id" text PRIMARY KEY NOT NULL,
	"event_id" text NOT NULL,
	"endpoint_id" text NOT NULL,
	"event" text NOT NULL,
	"uetr" text NOT NULL,
	"status" text NOT NULL,
	"round" integer NOT NULL,
	"attempts" integer NOT NULL,
	"next_attempt_at" timestamp (3) with time zone,
	"lease_owner" text,
	"lease_until" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone NOT NULL,
	"delivered_at" timestamp (3) with time zone
);
--> statement-breakpoint
CREATE TABLE "webhook_endpoints" (
	"id" text PRIMARY KEY NOT NULL,
	"url" text NOT NULL,
	"description" text NOT NULL,
	"events" jsonb NOT NULL,
	"enabled" boolean NOT NULL,
	"secret" text,
	"previous_secret" text,
	"previous_secret_expires_at" timestamp (3) with time zone,
	"secret_updated_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone NOT NULL,
	"updated_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "webhook_events" (
	"id" text PRIMARY KEY NOT NULL,
	"type" text NOT NULL,
	"uetr" text NOT NULL,
	"body" text NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE INDEX "payments_open" ON "payments" USING btree ("source","status");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_due" ON "webhook_deliveries" USING btree ("status","next_attempt_at");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_endpoint" ON "webhook_deliveries" USING btree ("endpoint_id","created_at");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_created" ON "webhook_deliveries" USING btree ("created_at");