import { defineConfig } from "drizzle-kit";

// Only `drizzle-kit generate` uses this file: the app applies drizzle/postgres/ at start-up,
// under an advisory lock (shared/db/postgres.ts).
export default defineConfig({
  dialect: "postgresql",
  schema: "./shared/db/schema.pg.ts",
  out: "./drizzle/postgres",
});
