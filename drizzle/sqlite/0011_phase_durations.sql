CREATE TABLE `launch_months` (
	`org_id` text NOT NULL,
	`month` text NOT NULL,
	`launches` integer NOT NULL,
	`on_time` integer NOT NULL,
	`late` integer NOT NULL,
	`delay_seconds` real NOT NULL,
	PRIMARY KEY(`org_id`, `month`)
);
--> statement-breakpoint
CREATE TABLE `phase_visit_months` (
	`org_id` text NOT NULL,
	`month` text NOT NULL,
	`phase` text NOT NULL,
	`bucket` integer NOT NULL,
	`visits` integer NOT NULL,
	`active_seconds` real NOT NULL,
	PRIMARY KEY(`org_id`, `month`, `phase`, `bucket`)
);
--> statement-breakpoint
ALTER TABLE `phase_transitions` ADD `active_seconds` real DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `phase_transitions` ADD `first_launch` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `phase_transitions` ADD `launch_delay_seconds` real;--> statement-breakpoint
CREATE INDEX `phase_transitions_org_at_idx` ON `phase_transitions` (`org_id`,`at`,`from_phase`,`active_seconds`);--> statement-breakpoint
CREATE INDEX `phase_transitions_customer_idx` ON `phase_transitions` (`org_id`,`customer_id`,`at`);--> statement-breakpoint
-- Backfill of the transitions recorded before this migration and of the monthly aggregates
-- (the bucket is shared/phase-durations.ts's durationBucket, written in SQL). A first launch's
-- delay is measured against the onboarding's target date as it is now: earlier ones were not kept.
UPDATE `phase_transitions` SET `active_seconds` = MAX(0, (`at` - `phase_entered_at`) / 1000000.0 - `sla_suspended_seconds`);--> statement-breakpoint
UPDATE `phase_transitions` SET `first_launch` = 1 WHERE `to_phase` = 'launch' AND NOT EXISTS (
  SELECT 1 FROM `phase_transitions` p WHERE p.`onboarding_id` = `phase_transitions`.`onboarding_id` AND p.`to_phase` = 'launch' AND p.`at` < `phase_transitions`.`at`);--> statement-breakpoint
UPDATE `phase_transitions` SET `launch_delay_seconds` = (
  SELECT MAX(0, `phase_transitions`.`at` / 1000000.0 - (julianday(o.`target_launch_date`) - 2440587.5) * 86400.0)
  FROM `onboardings` o WHERE o.`id` = `phase_transitions`.`onboarding_id` AND julianday(o.`target_launch_date`) IS NOT NULL)
WHERE `first_launch` = 1;--> statement-breakpoint
INSERT INTO `phase_visit_months` (`org_id`, `month`, `phase`, `bucket`, `visits`, `active_seconds`)
SELECT `org_id`, strftime('%Y-%m', `at` / 1000000, 'unixepoch'), `from_phase`,
  CASE WHEN `active_seconds` < 1 THEN 0 ELSE 1 + CAST(floor(ln(`active_seconds`) / ln(1.02)) AS INTEGER) END, count(*), sum(`active_seconds`)
FROM `phase_transitions` GROUP BY 1, 2, 3, 4;--> statement-breakpoint
INSERT INTO `launch_months` (`org_id`, `month`, `launches`, `on_time`, `late`, `delay_seconds`)
SELECT `org_id`, strftime('%Y-%m', `at` / 1000000, 'unixepoch'), count(*),
  sum(CASE WHEN `launch_delay_seconds` = 0 THEN 1 ELSE 0 END), sum(CASE WHEN `launch_delay_seconds` > 0 THEN 1 ELSE 0 END),
  coalesce(sum(CASE WHEN `launch_delay_seconds` > 0 THEN `launch_delay_seconds` END), 0)
FROM `phase_transitions` WHERE `first_launch` = 1 GROUP BY 1, 2;
