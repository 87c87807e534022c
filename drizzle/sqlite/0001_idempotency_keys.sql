CREATE TABLE `idempotency_keys` (
	`api_key_id` text NOT NULL,
	`key` text NOT NULL,
	`fingerprint` text NOT NULL,
	`claimed_at` integer NOT NULL,
	`completed_at` integer,
	`response_status` integer,
	`response_body` text,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`api_key_id`, `key`)
);
--> statement-breakpoint
CREATE INDEX `idempotency_keys_created_idx` ON `idempotency_keys` (`created_at`);