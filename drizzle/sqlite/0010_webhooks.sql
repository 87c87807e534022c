CREATE TABLE `webhook_attempts` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`endpoint_id` text NOT NULL,
	`event_id` text NOT NULL,
	`attempt` integer NOT NULL,
	`status_code` integer,
	`duration_ms` real NOT NULL,
	`error` text,
	`response_excerpt` text,
	`created_at` integer NOT NULL,
	`next_attempt_at` integer
);
--> statement-breakpoint
CREATE INDEX `webhook_attempts_endpoint_idx` ON `webhook_attempts` (`endpoint_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `webhook_attempts_event_idx` ON `webhook_attempts` (`endpoint_id`,`event_id`);--> statement-breakpoint
CREATE INDEX `webhook_attempts_created_idx` ON `webhook_attempts` (`created_at`);--> statement-breakpoint
CREATE TABLE `webhook_endpoints` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`url` text NOT NULL,
	`description` text,
	`enabled_events` text NOT NULL,
	`status` text NOT NULL,
	`disabled_reason` text,
	`secret` text NOT NULL,
	`previous_secret` text,
	`previous_secret_expires_at` integer,
	`failing_since` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `webhook_endpoints_org_idx` ON `webhook_endpoints` (`org_id`,`created_at`);