import type { Db } from "./client.ts";
import { closeDatabase, writeTransaction } from "./client.ts";
import { run, runSync, type Flow } from "./flow.ts";
import { closePostgres, pgTransaction, type PgDb } from "./postgres.ts";

/**
 * Runs a flow in one write transaction and answers its result as a step of the caller's flow:
 * `const row = yield* database.transaction(function* () { … })`. Nested in another
 * transaction it is a savepoint of it, on both engines.
 */
export type Transaction = <T>(body: () => Flow<T>) => Flow<T>;

interface Common {
  transaction: Transaction;
  /** What a log line may show of it. */
  describe: string;
}

/**
 * An open database of either engine: the handle a process's composition root builds its
 * stores from (each process has one file choosing the adapters: `api/stores.ts`,
 * `worker/stores.ts`, `admin/stores.ts`). Nothing else branches on the engine.
 */
export type Database =
  | (Common & { engine: "sqlite"; db: Db; close(): void })
  | (Common & { engine: "postgres"; db: PgDb; close(): Promise<void> });

/**
 * SQLite: the body runs synchronously inside BEGIN IMMEDIATE … COMMIT (see `writeTransaction`),
 * so no other request's statement can run inside it; its steps must all answer plain values.
 */
export function sqliteDatabase(db: Db, describe = "sqlite"): Database {
  return {
    engine: "sqlite",
    db,
    describe,
    transaction: function* <T>(body: () => Flow<T>): Flow<T> {
      return writeTransaction(db, () => runSync(body()));
    },
    close: () => closeDatabase(db),
  };
}

/**
 * PostgreSQL: a real transaction on one pooled connection (found by the stores through
 * AsyncLocalStorage), retried on serialization failures and deadlocks, bounded in time (see
 * `pgTransaction`). The body must be safe to run again: it only talks to the database.
 */
export function postgresDatabase(db: PgDb): Database {
  return {
    engine: "postgres",
    db,
    describe: "postgres",
    transaction: function* <T>(body: () => Flow<T>): Flow<T> {
      return (yield pgTransaction(db, async () => await run(body()))) as T;
    },
    close: () => closePostgres(db),
  };
}
