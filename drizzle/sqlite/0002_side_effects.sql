CREATE TABLE `activity_entries` (
	`request_id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`key_id` text NOT NULL,
	`actor` text NOT NULL,
	`method` text NOT NULL,
	`route` text NOT NULL,
	`status` integer NOT NULL,
	`address` text,
	`duration_ms` real NOT NULL,
	`at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `activity_org_idx` ON `activity_entries` (`org_id`,`at`);--> statement-breakpoint
CREATE TABLE `calendar_entries` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`source` text NOT NULL,
	`org_id` text NOT NULL,
	`customer_id` text NOT NULL,
	`onboarding_id` text NOT NULL,
	`kind` text NOT NULL,
	`title` text NOT NULL,
	`at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `calendar_entries_source_unique` ON `calendar_entries` (`source`);--> statement-breakpoint
CREATE TABLE `deliveries` (
	`id` text PRIMARY KEY NOT NULL,
	`source` text NOT NULL,
	`org_id` text NOT NULL,
	`onboarding_id` text NOT NULL,
	`kind` text NOT NULL,
	`target` text,
	`status` text NOT NULL,
	`detail` text,
	`attempts` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `deliveries_source_unique` ON `deliveries` (`source`);--> statement-breakpoint
CREATE INDEX `deliveries_org_idx` ON `deliveries` (`org_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `deliveries_onboarding_idx` ON `deliveries` (`onboarding_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `email_drafts` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`source` text NOT NULL,
	`org_id` text NOT NULL,
	`onboarding_id` text NOT NULL,
	`to_address` text NOT NULL,
	`subject` text NOT NULL,
	`raw` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `email_drafts_source_unique` ON `email_drafts` (`source`);--> statement-breakpoint
CREATE TABLE `phase_transitions` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`source` text NOT NULL,
	`org_id` text NOT NULL,
	`customer_id` text NOT NULL,
	`onboarding_id` text NOT NULL,
	`from_phase` text NOT NULL,
	`to_phase` text NOT NULL,
	`at` integer NOT NULL,
	`actor` text NOT NULL,
	`phase_entered_at` integer NOT NULL,
	`sla_suspended_seconds` real NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `phase_transitions_source_unique` ON `phase_transitions` (`source`);--> statement-breakpoint
CREATE INDEX `phase_transitions_onboarding_idx` ON `phase_transitions` (`onboarding_id`,`at`);--> statement-breakpoint
CREATE TABLE `reminder_marks` (
	`onboarding_id` text NOT NULL,
	`period` integer NOT NULL,
	`queued_at` integer NOT NULL,
	PRIMARY KEY(`onboarding_id`, `period`)
);
--> statement-breakpoint
CREATE TABLE `timeline_events` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`source` text NOT NULL,
	`org_id` text NOT NULL,
	`customer_id` text NOT NULL,
	`onboarding_id` text,
	`kind` text NOT NULL,
	`data` text NOT NULL,
	`actor` text NOT NULL,
	`at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `timeline_events_source_unique` ON `timeline_events` (`source`);--> statement-breakpoint
CREATE INDEX `timeline_customer_idx` ON `timeline_events` (`customer_id`,`at`);--> statement-breakpoint
CREATE TABLE `users` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`name` text NOT NULL,
	`email` text NOT NULL,
	`slack_user_id` text,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `users_org_idx` ON `users` (`org_id`,`created_at`);--> statement-breakpoint
ALTER TABLE `organizations` ADD `slack_token_encrypted` text;--> statement-breakpoint
CREATE INDEX `onboardings_waiting_idx` ON `onboardings` (`waiting_on_customer_since`) WHERE waiting_on_customer = 1 AND deleted_at IS NULL;