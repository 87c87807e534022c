CREATE TABLE `event_positions` (
	`org_id` text PRIMARY KEY NOT NULL,
	`last_position` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `events` (
	`org_id` text NOT NULL,
	`position` integer NOT NULL,
	`id` text NOT NULL,
	`type` text NOT NULL,
	`object_id` text NOT NULL,
	`livemode` integer NOT NULL,
	`actor_type` text NOT NULL,
	`actor_name` text NOT NULL,
	`request_id` text,
	`idempotency_key` text,
	`data` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`org_id`, `position`)
);
--> statement-breakpoint
CREATE UNIQUE INDEX `events_id_uq` ON `events` (`id`);--> statement-breakpoint
CREATE INDEX `events_object_idx` ON `events` (`org_id`,`object_id`,`position`);--> statement-breakpoint
CREATE INDEX `events_created_idx` ON `events` (`created_at`);