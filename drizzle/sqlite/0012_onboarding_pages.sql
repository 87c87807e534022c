ALTER TABLE `onboardings` ADD `target_launch_at` integer;--> statement-breakpoint
CREATE INDEX `onboardings_org_waiting_idx` ON `onboardings` (`org_id`,`waiting_on_customer_since`) WHERE waiting_on_customer AND deleted_at IS NULL;--> statement-breakpoint
CREATE INDEX `onboardings_overdue_idx` ON `onboardings` (`org_id`,`target_launch_at`) WHERE deleted_at IS NULL AND phase NOT IN ('launch', 'completed');--> statement-breakpoint
CREATE INDEX `onboardings_csm_list_idx` ON `onboardings` (`org_id`,`csm_id`,`created_at`) WHERE deleted_at IS NULL;--> statement-breakpoint
CREATE INDEX `phase_transitions_launch_idx` ON `phase_transitions` (`org_id`,`at`) WHERE first_launch;--> statement-breakpoint
-- Backfill: target_launch_date is RFC 3339 with a zone (validated on the way in), which
-- julianday() reads once upper-cased; kept to the millisecond, which is plenty for "overdue".
UPDATE `onboardings` SET `target_launch_at` = CAST(ROUND((julianday(upper(`target_launch_date`)) - 2440587.5) * 86400000) AS INTEGER) * 1000 WHERE `target_launch_date` IS NOT NULL;
