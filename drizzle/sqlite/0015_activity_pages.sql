CREATE TABLE `activity_pages` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`first_at` integer NOT NULL,
	`last_at` integer NOT NULL,
	`entry_count` integer NOT NULL,
	`entries` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `activity_pages_org_idx` ON `activity_pages` (`org_id`,`last_at`);--> statement-breakpoint
CREATE INDEX `activity_pages_at_idx` ON `activity_pages` (`last_at`);