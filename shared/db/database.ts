import type { Db } from "./client.ts";
import { closeDatabase, writeTransaction } from "./client.ts";
import { run, runSync, type Flow } from "./flow.ts";
import { afterCommit, closePostgres, pgTransaction, transactionOf, type PgDb } from "./postgres.ts";
import { postgresSql, sqliteSql, type PgExecutor, type Sql, type WriteCounter } from "./sql.ts";
import { watchWalCommits, type CommitWatch } from "./wal-commits.ts";

/**
 * Runs a flow in one write transaction and answers its result as a step of the caller's flow:
 * `const row = yield* database.transaction(function* () { … })`. Nested in another
 * transaction it is part of it, on both engines: a nested one that fails fails the one around
 * it, caught or not, and nothing of either commits.
 */
export type Transaction = <T>(body: () => Flow<T>) => Flow<T>;

interface Common {
  transaction: Transaction;
  /**
   * Runs a flow that may wait on something besides the database (a hand-over to Redis) while
   * the rows it read stay claimed: on PostgreSQL a transaction (the rows read with `lock:
   * "skip-locked"` are passed over by other processes until it ends), bounded by `deadlineMs`;
   * on SQLite no transaction at all (one cannot wait, and one process per file does this work),
   * each statement committing by itself.
   */
  holding: <T>(body: () => Flow<T>, deadlineMs: number) => Flow<T>;
  /** The statements of every store, written once (shared/db/sql.ts). */
  sql: Sql;
  /**
   * Rows written so far by the statements of the transaction this call runs in (on SQLite, of
   * the connection). Only a difference across a change means anything: `0` means it wrote nothing.
   */
  writes(): number;
  /**
   * A watch that answers, without a statement, whether any connection committed since the
   * caller's mark (shared/db/wal-commits.ts), for what a process keeps of a read (the key
   * cache's revision); null where the engine has none to offer (PostgreSQL, SQLite in memory),
   * and the caller reads every time. Each call makes a watch of its own; `close` ends them.
   */
  watchCommits(): CommitWatch | null;
  /** What a log line may show of it. */
  describe: string;
}

/**
 * An open database of either engine: the handle a process's composition root builds its
 * stores from (`api/stores.ts`, `worker/stores.ts`, `admin/stores.ts`, each the same for both
 * engines). Only `sql`, `transaction` and `writes` know the engine; stores never branch on it.
 */
export type Database =
  | (Common & { engine: "sqlite"; db: Db; /** The file (`:memory:` for none). */ path: string; close(): void | Promise<void> })
  | (Common & { engine: "postgres"; db: PgDb; close(): Promise<void> });

/**
 * SQLite: the body runs synchronously inside BEGIN IMMEDIATE … COMMIT (see `writeTransaction`),
 * so no other request's statement can run inside it; its steps must all answer plain values.
 */
/** A SQLite database: its connection (`db`) is there without narrowing. */
export type SqliteDatabase = Extract<Database, { engine: "sqlite" }>;

export function sqliteDatabase(db: Db, describe = "sqlite"): SqliteDatabase {
  const writes: WriteCounter = { count: 0 };
  const watches: CommitWatch[] = [];
  return {
    engine: "sqlite",
    db,
    path: db.$client.filename || ":memory:",
    describe,
    sql: sqliteSql(db.$client, writes),
    writes: () => writes.count,
    transaction: function* <T>(body: () => Flow<T>): Flow<T> {
      return writeTransaction(db, () => runSync(body()));
    },
    holding: (body) => body(),
    watchCommits() {
      const watch = watchWalCommits(db.$client);
      if (watch) watches.push(watch);
      return watch;
    },
    close() {
      for (const watch of watches.splice(0)) watch.close();
      closeDatabase(db);
    },
  };
}

/**
 * PostgreSQL: a real transaction on one pooled connection (found by the statements through
 * AsyncLocalStorage), retried on serialization failures and deadlocks, bounded in time and
 * cancelled past its bound (see `pgTransaction`). The body must be safe to run again: it only
 * talks to the database.
 */
export function postgresDatabase(db: PgDb): Database {
  const client = db.$client;
  const current = transactionOf(client);
  return {
    engine: "postgres",
    db,
    describe: "postgres",
    sql: postgresSql(client as unknown as PgExecutor, current, afterCommit),
    writes: () => current()?.state.writes.count ?? 0,
    transaction: function* <T>(body: () => Flow<T>): Flow<T> {
      return (yield pgTransaction(client, async () => await run(body()))) as T;
    },
    holding: function* <T>(body: () => Flow<T>, deadlineMs: number): Flow<T> {
      return (yield pgTransaction(client, async () => await run(body()), { deadlineMs })) as T;
    },
    watchCommits: () => null,
    close: () => closePostgres(db),
  };
}
