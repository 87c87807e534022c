CREATE TABLE `auth_revision` (
	`id` integer PRIMARY KEY NOT NULL,
	`revision` integer NOT NULL
);
--> statement-breakpoint
-- Hand-written below: the one row, and the triggers that bump it on every change to a key's identity.
INSERT INTO `auth_revision` (`id`, `revision`) VALUES (1, 0);
--> statement-breakpoint
CREATE TRIGGER `api_keys_identity_changed` AFTER UPDATE OF `revoked_at`, `name`, `prefix`, `key_hash`, `mode`, `rate_limit_tier`, `org_id` ON `api_keys`
BEGIN
	UPDATE `auth_revision` SET `revision` = `revision` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `api_keys_deleted` AFTER DELETE ON `api_keys`
BEGIN
	UPDATE `auth_revision` SET `revision` = `revision` + 1 WHERE `id` = 1;
END;
