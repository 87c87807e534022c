CREATE TABLE "launch_months" (
	"org_id" text NOT NULL,
	"month" text NOT NULL,
	"launches" integer NOT NULL,
	"on_time" integer NOT NULL,
	"late" integer NOT NULL,
	"delay_seconds" double precision NOT NULL,
	CONSTRAINT "launch_months_org_id_month_pk" PRIMARY KEY("org_id","month")
);
--> statement-breakpoint
CREATE TABLE "phase_visit_months" (
	"org_id" text NOT NULL,
	"month" text NOT NULL,
	"phase" text NOT NULL,
	"bucket" integer NOT NULL,
	"visits" integer NOT NULL,
	"active_seconds" double precision NOT NULL,
	CONSTRAINT "phase_visit_months_org_id_month_phase_bucket_pk" PRIMARY KEY("org_id","month","phase","bucket")
);
--> statement-breakpoint
ALTER TABLE "phase_transitions" ADD COLUMN "active_seconds" double precision DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "phase_transitions" ADD COLUMN "first_launch" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "phase_transitions" ADD COLUMN "launch_delay_seconds" double precision;--> statement-breakpoint
CREATE INDEX "phase_transitions_org_at_idx" ON "phase_transitions" USING btree ("org_id","at","from_phase","active_seconds");--> statement-breakpoint
CREATE INDEX "phase_transitions_customer_idx" ON "phase_transitions" USING btree ("org_id","customer_id","at");--> statement-breakpoint
-- Backfill of the transitions recorded before this migration and of the monthly aggregates
-- (the bucket is shared/phase-durations.ts's durationBucket, written in SQL). A first launch's
-- delay is measured against the onboarding's target date as it is now: earlier ones were not kept.
UPDATE "phase_transitions" SET "active_seconds" = GREATEST(0, ("at" - "phase_entered_at") / 1000000.0 - "sla_suspended_seconds");--> statement-breakpoint
UPDATE "phase_transitions" t SET "first_launch" = true WHERE t."to_phase" = 'launch' AND NOT EXISTS (
  SELECT 1 FROM "phase_transitions" p WHERE p."onboarding_id" = t."onboarding_id" AND p."to_phase" = 'launch' AND p."at" < t."at");--> statement-breakpoint
UPDATE "phase_transitions" t SET "launch_delay_seconds" = GREATEST(0, t."at" / 1000000.0 - extract(epoch FROM o."target_launch_date"::timestamptz))
FROM "onboardings" o WHERE o."id" = t."onboarding_id" AND o."target_launch_date" IS NOT NULL AND t."first_launch";--> statement-breakpoint
INSERT INTO "phase_visit_months" ("org_id", "month", "phase", "bucket", "visits", "active_seconds")
SELECT "org_id", to_char(to_timestamp("at" / 1000000.0) AT TIME ZONE 'UTC', 'YYYY-MM'), "from_phase",
  CASE WHEN "active_seconds" < 1 THEN 0 ELSE 1 + floor(ln("active_seconds") / ln(1.02::float8))::integer END, count(*), sum("active_seconds")
FROM "phase_transitions" GROUP BY 1, 2, 3, 4;--> statement-breakpoint
INSERT INTO "launch_months" ("org_id", "month", "launches", "on_time", "late", "delay_seconds")
SELECT "org_id", to_char(to_timestamp("at" / 1000000.0) AT TIME ZONE 'UTC', 'YYYY-MM'), count(*),
  count(*) FILTER (WHERE "launch_delay_seconds" = 0), count(*) FILTER (WHERE "launch_delay_seconds" > 0),
  coalesce(sum("launch_delay_seconds") FILTER (WHERE "launch_delay_seconds" > 0), 0)
FROM "phase_transitions" WHERE "first_launch" GROUP BY 1, 2;
