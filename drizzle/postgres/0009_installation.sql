CREATE TABLE "installation" (
	"singleton" integer PRIMARY KEY NOT NULL,
	"id" text NOT NULL,
	"created_at" bigint NOT NULL
);
