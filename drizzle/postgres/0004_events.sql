CREATE TABLE "event_positions" (
	"org_id" text PRIMARY KEY NOT NULL,
	"last_position" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "events" (
	"org_id" text NOT NULL,
	"position" bigint NOT NULL,
	"id" text NOT NULL,
	"type" text NOT NULL,
	"object_id" text NOT NULL,
	"livemode" boolean NOT NULL,
	"actor_type" text NOT NULL,
	"actor_name" text NOT NULL,
	"request_id" text,
	"idempotency_key" text,
	"data" text NOT NULL,
	"created_at" bigint NOT NULL,
	CONSTRAINT "events_org_id_position_pk" PRIMARY KEY("org_id","position")
);
--> statement-breakpoint
CREATE UNIQUE INDEX "events_id_uq" ON "events" USING btree ("id");--> statement-breakpoint
CREATE INDEX "events_object_idx" ON "events" USING btree ("org_id","object_id","position");--> statement-breakpoint
CREATE INDEX "events_created_idx" ON "events" USING btree ("created_at");