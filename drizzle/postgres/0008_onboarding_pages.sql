ALTER TABLE "onboardings" ADD COLUMN "target_launch_at" bigint;--> statement-breakpoint
CREATE INDEX "onboardings_org_waiting_idx" ON "onboardings" USING btree ("org_id","waiting_on_customer_since") WHERE waiting_on_customer AND deleted_at IS NULL;--> statement-breakpoint
CREATE INDEX "onboardings_overdue_idx" ON "onboardings" USING btree ("org_id","target_launch_at") WHERE deleted_at IS NULL AND phase NOT IN ('launch', 'completed');--> statement-breakpoint
CREATE INDEX "onboardings_csm_list_idx" ON "onboardings" USING btree ("org_id","csm_id","created_at") WHERE deleted_at IS NULL;--> statement-breakpoint
CREATE INDEX "phase_transitions_launch_idx" ON "phase_transitions" USING btree ("org_id","at") WHERE first_launch;--> statement-breakpoint
-- Backfill: target_launch_date is RFC 3339 with a zone (validated on the way in).
UPDATE "onboardings" SET "target_launch_at" = round(EXTRACT(EPOCH FROM upper("target_launch_date")::timestamptz) * 1000000)::bigint WHERE "target_launch_date" IS NOT NULL;
