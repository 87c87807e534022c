-- Hand-written, SQLite only, and not in shared/db/schema.ts (no PostgreSQL twin, nothing for the
-- copy to PostgreSQL to carry): a workspace's onboarding revision, which the triggers below move
-- forward in the transaction of every change or deletion of one of its onboardings, by any
-- writer. The API keeps it in memory until the next commit of any connection (the WAL-index
-- header, shared/db/wal-commits.ts), so that a GET of an onboarding whose rendered text was
-- found current at that revision is answered without a statement (api/http/rendered.ts).
-- PostgreSQL has no such header, and a row every change of a workspace wrote would queue that
-- workspace's changes on its lock: there the GET reads the onboarding's version instead.
-- A row is made by its workspace's first change and never deleted, so a revision never comes back.
CREATE TABLE `onboarding_revisions` (
	`org_id` text PRIMARY KEY NOT NULL,
	`revision` integer NOT NULL
) WITHOUT ROWID;
--> statement-breakpoint
CREATE TRIGGER `onboardings_changed` AFTER UPDATE ON `onboardings`
BEGIN
	INSERT INTO `onboarding_revisions` (`org_id`, `revision`) VALUES (OLD.`org_id`, 1)
		ON CONFLICT (`org_id`) DO UPDATE SET `revision` = `revision` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `onboardings_deleted` AFTER DELETE ON `onboardings`
BEGIN
	INSERT INTO `onboarding_revisions` (`org_id`, `revision`) VALUES (OLD.`org_id`, 1)
		ON CONFLICT (`org_id`) DO UPDATE SET `revision` = `revision` + 1;
END;
