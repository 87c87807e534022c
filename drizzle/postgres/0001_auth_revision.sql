CREATE TABLE "auth_revision" (
	"id" integer PRIMARY KEY NOT NULL,
	"revision" integer NOT NULL
);
--> statement-breakpoint
-- Hand-written below: the one row, and the trigger that bumps it on every change to a key's identity.
INSERT INTO "auth_revision" ("id", "revision") VALUES (1, 0);
--> statement-breakpoint
CREATE FUNCTION "bump_auth_revision"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	UPDATE "auth_revision" SET "revision" = "revision" + 1 WHERE "id" = 1;
	RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER "api_keys_identity_changed" AFTER UPDATE OF "revoked_at", "name", "prefix", "key_hash", "mode", "rate_limit_tier", "org_id" OR DELETE ON "api_keys"
	FOR EACH STATEMENT EXECUTE FUNCTION "bump_auth_revision"();
