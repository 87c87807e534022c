CREATE TABLE `installation` (
	`singleton` integer PRIMARY KEY NOT NULL,
	`id` text NOT NULL,
	`created_at` integer NOT NULL
);
