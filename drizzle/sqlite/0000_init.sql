CREATE TABLE `api_keys` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`name` text NOT NULL,
	`prefix` text NOT NULL,
	`key_hash` text NOT NULL,
	`mode` text NOT NULL,
	`rate_limit_tier` text DEFAULT 'default' NOT NULL,
	`created_at` integer NOT NULL,
	`revoked_at` integer,
	`last_used_at` integer,
	`last_used_ip` text,
	`request_count` integer DEFAULT 0 NOT NULL,
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `api_keys_key_hash_unique` ON `api_keys` (`key_hash`);--> statement-breakpoint
CREATE INDEX `api_keys_org_idx` ON `api_keys` (`org_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `contacts` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`customer_id` text NOT NULL,
	`display_id` integer NOT NULL,
	`name` text NOT NULL,
	`email` text,
	`title` text,
	`is_primary` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`deleted_at` integer,
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`customer_id`) REFERENCES `customers`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `contacts_display_id_uq` ON `contacts` (`org_id`,`display_id`);--> statement-breakpoint
CREATE INDEX `contacts_list_idx` ON `contacts` (`customer_id`,`created_at`) WHERE deleted_at IS NULL;--> statement-breakpoint
CREATE UNIQUE INDEX `contacts_one_primary_uq` ON `contacts` (`customer_id`) WHERE is_primary = 1 AND deleted_at IS NULL;--> statement-breakpoint
CREATE TABLE `customers` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`display_id` integer NOT NULL,
	`name` text NOT NULL,
	`slug` text NOT NULL,
	`domain` text,
	`status` text NOT NULL,
	`metadata` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`deleted_at` integer,
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `customers_display_id_uq` ON `customers` (`org_id`,`display_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `customers_slug_live_uq` ON `customers` (`org_id`,`slug`) WHERE deleted_at IS NULL;--> statement-breakpoint
CREATE INDEX `customers_list_idx` ON `customers` (`org_id`,`created_at`) WHERE deleted_at IS NULL;--> statement-breakpoint
CREATE INDEX `customers_status_list_idx` ON `customers` (`org_id`,`status`,`created_at`) WHERE deleted_at IS NULL;--> statement-breakpoint
CREATE TABLE `onboardings` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`customer_id` text NOT NULL,
	`display_id` integer NOT NULL,
	`template_id` text,
	`phase` text NOT NULL,
	`state` text NOT NULL,
	`started_at` integer NOT NULL,
	`completed_at` integer,
	`target_launch_date` text,
	`csm_id` text,
	`se_id` text,
	`designer_id` text,
	`product_ops_id` text,
	`notes` text,
	`waiting_on_customer` integer NOT NULL,
	`waiting_on_customer_since` integer,
	`wizard_completed_at` text,
	`reminder_email` integer NOT NULL,
	`reminder_slack` integer NOT NULL,
	`reminder_frequency_days` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`deleted_at` integer,
	`phase_entered_at` integer NOT NULL,
	`sla_suspended_micros` integer DEFAULT 0 NOT NULL,
	`sla_suspended_since` integer,
	`last_changed_mode` text NOT NULL,
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`customer_id`) REFERENCES `customers`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `onboardings_display_id_uq` ON `onboardings` (`org_id`,`display_id`);--> statement-breakpoint
CREATE INDEX `onboardings_list_idx` ON `onboardings` (`org_id`,`created_at`) WHERE deleted_at IS NULL;--> statement-breakpoint
CREATE INDEX `onboardings_phase_list_idx` ON `onboardings` (`org_id`,`phase`,`created_at`) WHERE deleted_at IS NULL;--> statement-breakpoint
CREATE INDEX `onboardings_state_list_idx` ON `onboardings` (`org_id`,`state`,`created_at`) WHERE deleted_at IS NULL;--> statement-breakpoint
CREATE INDEX `onboardings_phase_state_list_idx` ON `onboardings` (`org_id`,`phase`,`state`,`created_at`) WHERE deleted_at IS NULL;--> statement-breakpoint
CREATE INDEX `onboardings_customer_list_idx` ON `onboardings` (`customer_id`,`created_at`) WHERE deleted_at IS NULL;--> statement-breakpoint
CREATE TABLE `organizations` (
	`id` text PRIMARY KEY NOT NULL,
	`slug` text NOT NULL,
	`name` text NOT NULL,
	`launch_recap_enabled` integer DEFAULT false NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `organizations_slug_unique` ON `organizations` (`slug`);--> statement-breakpoint
CREATE TABLE `outbox` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`org_id` text NOT NULL,
	`queue` text NOT NULL,
	`name` text NOT NULL,
	`payload` text NOT NULL,
	`created_at` integer NOT NULL,
	`relayed_at` integer
);
--> statement-breakpoint
CREATE INDEX `outbox_pending_idx` ON `outbox` (`id`) WHERE relayed_at IS NULL;--> statement-breakpoint
CREATE TABLE `sequences` (
	`org_id` text NOT NULL,
	`kind` text NOT NULL,
	`last_display_id` integer NOT NULL,
	`last_created_at` integer NOT NULL,
	PRIMARY KEY(`org_id`, `kind`),
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action
);
