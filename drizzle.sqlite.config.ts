import { defineConfig } from "drizzle-kit";

// Only `drizzle-kit generate` uses this file: migrations are applied by the app at start-up
// (drizzle-kit's own `migrate` cannot drive bun:sqlite). The folder keeps the journal that
// databases made before the PostgreSQL schema existed were migrated with.
export default defineConfig({
  dialect: "sqlite",
  schema: "./shared/db/schema.ts",
  out: "./drizzle/sqlite",
});
