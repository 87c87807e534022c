import type { DatabaseConfig } from "../config.ts";
import { ConfigError } from "../errors.ts";
import { openDatabase, type Db, type OpenOptions } from "./client.ts";

/**
 * Opens the database `DATABASE_URL` names, for the entry points (API, worker, command line).
 * PostgreSQL is recognised (so `postgres://…` is never taken for a file path), but the stores
 * have only their SQLite adapter so far: such a URL stops start-up with a plain reason.
 */
export function openConfiguredDatabase(database: DatabaseConfig, options: OpenOptions = {}): Db {
  if (database.engine === "postgres") {
    throw new ConfigError(
      "DATABASE_URL names PostgreSQL, but this build serves only from SQLite so far (the PostgreSQL store adapter is not in yet); use file:<path>.",
    );
  }
  return openDatabase(database.path, options);
}

/** What a log line may show of the database. */
export const describeDatabase = (database: DatabaseConfig) => (database.engine === "sqlite" ? database.path : "postgres");

/** For entry points: open the database or stop the process with the reason (EX_CONFIG). */
export function openDatabaseOrExit(database: DatabaseConfig, options: OpenOptions = {}): Db {
  try {
    return openConfiguredDatabase(database, options);
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`Configuration error: ${error.message}`);
      process.exit(78);
    }
    throw error;
  }
}
