CREATE TABLE "wallet_sync_usage" (
	"id" integer PRIMARY KEY NOT NULL,
	"bytes" bigint NOT NULL,
	CONSTRAINT "wallet_sync_usage_one_row" CHECK ("wallet_sync_usage"."id" = 1),
	CONSTRAINT "wallet_sync_usage_not_negative" CHECK ("wallet_sync_usage"."bytes" >= 0)
);
--> statement-breakpoint
INSERT INTO "wallet_sync_usage" ("id", "bytes") VALUES (1,
	coalesce((SELECT sum(octet_length("data")) FROM "wallet_sync_envelopes"), 0)
	+ coalesce((SELECT sum(octet_length("kem_public_key") + coalesce(octet_length("label"), 0)) FROM "wallet_sync_devices"), 0));
--> statement-breakpoint
CREATE FUNCTION "wallet_sync_envelope_bytes"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	UPDATE "wallet_sync_usage"
	SET "bytes" = "bytes" + coalesce(octet_length(NEW."data"), 0) - coalesce(octet_length(OLD."data"), 0)
	WHERE "id" = 1;
	RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION "wallet_sync_device_bytes"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	UPDATE "wallet_sync_usage"
	SET "bytes" = "bytes"
		+ coalesce(octet_length(NEW."kem_public_key") + coalesce(octet_length(NEW."label"), 0), 0)
		- coalesce(octet_length(OLD."kem_public_key") + coalesce(octet_length(OLD."label"), 0), 0)
	WHERE "id" = 1;
	RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION "wallet_sync_recount"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	UPDATE "wallet_sync_usage"
	SET "bytes" = coalesce((SELECT sum(octet_length("data")) FROM "wallet_sync_envelopes"), 0)
		+ coalesce((SELECT sum(octet_length("kem_public_key") + coalesce(octet_length("label"), 0)) FROM "wallet_sync_devices"), 0)
	WHERE "id" = 1;
	RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "wallet_sync_envelopes_bytes" AFTER INSERT OR UPDATE OR DELETE ON "wallet_sync_envelopes" FOR EACH ROW EXECUTE FUNCTION "wallet_sync_envelope_bytes"();
--> statement-breakpoint
CREATE TRIGGER "wallet_sync_devices_bytes" AFTER INSERT OR UPDATE OR DELETE ON "wallet_sync_devices" FOR EACH ROW EXECUTE FUNCTION "wallet_sync_device_bytes"();
--> statement-breakpoint
CREATE TRIGGER "wallet_sync_envelopes_truncate" AFTER TRUNCATE ON "wallet_sync_envelopes" FOR EACH STATEMENT EXECUTE FUNCTION "wallet_sync_recount"();
--> statement-breakpoint
CREATE TRIGGER "wallet_sync_devices_truncate" AFTER TRUNCATE ON "wallet_sync_devices" FOR EACH STATEMENT EXECUTE FUNCTION "wallet_sync_recount"();
--> statement-breakpoint
CREATE TABLE "wallet_sync_ip_writes" (
	"ip_key" text NOT NULL,
	"hour" timestamp (3) with time zone NOT NULL,
	"bytes" bigint NOT NULL,
	CONSTRAINT "wallet_sync_ip_writes_ip_key_hour_pk" PRIMARY KEY("ip_key","hour")
);
--> statement-breakpoint
CREATE TABLE "wallet_identity_origins" (
	"svc_id" text PRIMARY KEY NOT NULL,
	"ip_key" text NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE INDEX "wallet_identity_origins_ip" ON "wallet_identity_origins" USING btree ("ip_key","created_at");
