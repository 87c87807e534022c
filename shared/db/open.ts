import type { DatabaseConfig } from "../config.ts";
import { ConfigError } from "../errors.ts";
import { openDatabase, type OpenOptions } from "./client.ts";
import { postgresDatabase, sqliteDatabase, type Database } from "./database.ts";
import { openPostgres } from "./postgres.ts";
import { startWalCheckpointer } from "./wal-checkpointer.ts";
import type { Logger } from "../logger.ts";

export interface OpenConfiguredOptions extends OpenOptions {
  /** PostgreSQL: the longest one statement may run (requests answer 503 within the API's bound). */
  statementTimeoutMs?: number;
  /**
   * SQLite: WAL checkpoints on a thread of their own, never inside a commit on the event loop
   * (the API; shared/db/wal-checkpointer.ts), its warnings to `logger`. Stopped by `close`.
   */
  checkpointThread?: { logger: Logger };
}

/** PostgreSQL could not be reached or migrated at start-up: the entry points say why and exit. */
export class DatabaseUnreachable extends Error {
  override name = "DatabaseUnreachable";
}

/**
 * Opens the database `DATABASE_URL` names and brings its schema up to date: SQLite (a file,
 * migrated in place) or PostgreSQL (a pool, migrated under an advisory lock so processes
 * starting together migrate once).
 */
export async function openConfiguredDatabase(database: DatabaseConfig, options: OpenConfiguredOptions = {}): Promise<Database> {
  if (database.engine === "sqlite") {
    const opened = sqliteDatabase(openDatabase(database.path, options), database.path);
    if (!options.checkpointThread || database.path === ":memory:") return opened;
    const checkpointer = startWalCheckpointer(opened.db.$client, database.path, options.checkpointThread);
    return {
      ...opened,
      async close() {
        await checkpointer.stop();
        await opened.close();
      },
    };
  }
  try {
    return postgresDatabase(await openPostgres(database.url, { poolSize: database.poolSize, statementTimeoutMs: options.statementTimeoutMs }));
  } catch (error) {
    throw new DatabaseUnreachable(`PostgreSQL at ${hostOf(database.url)} did not answer or could not be migrated: ${(error as Error).message}`);
  }
}

const hostOf = (url: string) => {
  try {
    const u = new URL(url);
    return `${u.hostname}:${u.port || 5432}${u.pathname}`;
  } catch {
    return "DATABASE_URL";
  }
};

/** What a log line may show of the database. */
export const describeDatabase = (database: DatabaseConfig) => (database.engine === "sqlite" ? database.path : `postgres ${hostOf(database.url)}`);

/**
 * For entry points: open the database or stop the process with the reason: a configuration
 * mistake exits 78 (EX_CONFIG), an unreachable PostgreSQL 69 (EX_UNAVAILABLE).
 */
export async function openDatabaseOrExit(database: DatabaseConfig, options: OpenConfiguredOptions = {}): Promise<Database> {
  try {
    return await openConfiguredDatabase(database, options);
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`Configuration error: ${error.message}`);
      process.exit(78);
    }
    if (error instanceof DatabaseUnreachable) {
      console.error(`Database unavailable: ${error.message}`);
      process.exit(69);
    }
    throw error;
  }
}
