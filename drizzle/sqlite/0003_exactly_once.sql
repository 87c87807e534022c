PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_outbox` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`org_id` text,
	`queue` text NOT NULL,
	`name` text NOT NULL,
	`payload` text NOT NULL,
	`created_at` integer NOT NULL,
	`relayed_at` integer,
	`completed_at` integer
);
--> statement-breakpoint
-- Rows relayed before this migration were deemed done once Redis took them: keep them done
-- (completed_at = relayed_at) so the reconciler does not hand the whole history over again.
INSERT INTO `__new_outbox`("id", "org_id", "queue", "name", "payload", "created_at", "relayed_at", "completed_at") SELECT "id", nullif("org_id", '*'), "queue", "name", "payload", "created_at", "relayed_at", "relayed_at" FROM `outbox`;--> statement-breakpoint
DROP TABLE `outbox`;--> statement-breakpoint
ALTER TABLE `__new_outbox` RENAME TO `outbox`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE INDEX `outbox_pending_idx` ON `outbox` (`id`) WHERE relayed_at IS NULL;--> statement-breakpoint
CREATE INDEX `outbox_unfinished_idx` ON `outbox` (`id`) WHERE relayed_at IS NOT NULL AND completed_at IS NULL;--> statement-breakpoint
ALTER TABLE `deliveries` ADD `send_started_at` integer;