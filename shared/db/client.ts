import { Database, type Statement } from "bun:sqlite";
import { mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { sql, type SQL } from "drizzle-orm";
import { drizzle, type BunSQLiteDatabase } from "drizzle-orm/bun-sqlite";
import { migrate } from "drizzle-orm/bun-sqlite/migrator";
import { endTurnSnapshot, inOwnTransaction } from "./turn-snapshot.ts";
import * as schema from "./schema.ts";

export type Db = BunSQLiteDatabase<typeof schema> & { $client: Database };

export const MIGRATIONS_FOLDER = resolve(import.meta.dir, "../../drizzle/sqlite");

/**
 * Each connection's page cache, in KiB (`PRAGMA cache_size` takes a negative number as KiB).
 * SQLite's default, 2,000 KiB (~500 pages), is about what the benchmark's reads touch (2,000
 * onboardings at random, beside a workspace of a million), and a page that fell out is read
 * from the file again; a larger installation touches more.
 * It is a ceiling, not an allocation: a connection holds the pages it read since another
 * connection last committed, since SQLite empties the cache then (WAL). Measured under wrk:
 * the read 13,446–16,162 → 16,459–17,686 req/s, the API's CPU per read 69–83 → 62–67 µs
 * (bench/RESULTS.md, issue #26's eighth pass).
 */
export const PAGE_CACHE_KIB = 64 * 1024;

export interface OpenOptions {
  /**
   * How long SQLite itself may wait for another connection's write lock. bun:sqlite waits
   * synchronously, freezing the whole event loop, so the API opens with 0 and retries
   * without blocking (`retryWhileBusy`); the worker and the command line may wait.
   */
  busyTimeoutMs?: number;
  /**
   * Whether this connection's commits checkpoint the WAL once it passes SQLite's default 1,000
   * pages (default true). A second writing connection of a process whose checkpoints run
   * elsewhere (the API's activity thread beside its checkpoint thread) opens without them.
   */
  commitsCheckpoint?: boolean;
}

/**
 * Opens the database and brings its schema up to date. WAL lets readers run beside the one
 * writer (API and worker processes share the file); foreign keys are off by default in SQLite.
 */
export function openDatabase(path: string, options: OpenOptions = {}): Db {
  if (path !== ":memory:") mkdirSync(dirname(resolve(path)), { recursive: true });
  const sqlite = new Database(path, { create: true, strict: true });
  // Migrating may meet another process doing the same at start-up: wait for it.
  sqlite.exec("PRAGMA busy_timeout = 5000");
  // A new file hands the pages pruning frees back to the file system (`incremental_vacuum`,
  // run by the worker after each pruning). SQLite takes this only before the first table; an
  // existing file converts once with `npm run admin -- retention vacuum`.
  sqlite.exec("PRAGMA auto_vacuum = INCREMENTAL");
  besideOthersStartingUp(() => sqlite.exec("PRAGMA journal_mode = WAL"));
  sqlite.exec("PRAGMA foreign_keys = ON");
  sqlite.exec("PRAGMA synchronous = NORMAL"); // durable across process crashes in WAL mode
  const db = drizzle(sqlite, { schema }) as Db;
  besideOthersStartingUp(() => migrate(db, { migrationsFolder: MIGRATIONS_FOLDER }));
  sqlite.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.floor(options.busyTimeoutMs ?? 5000))}`);
  if (options.commitsCheckpoint === false) sqlite.exec("PRAGMA wal_autocheckpoint = 0");
  sqlite.exec(`PRAGMA cache_size = -${PAGE_CACHE_KIB}`);
  return db;
}

/**
 * A start-up step on a file other processes may be opening at the same moment (`npm start`
 * starts the API and the worker together on a file that does not exist yet). Two failures
 * come from that alone, and both leave the step to be tried again:
 * - "already exists": drizzle reads which migrations ran before it opens its transaction, so
 *   the other process can apply them in between; this attempt was rolled back and the other's
 *   migrations are committed, so the next attempt finds nothing left to run.
 * - "database is locked" without the busy timeout's wait: turning a new file to WAL, or a
 *   transaction whose snapshot another process's commit made stale, is refused at once.
 */
function besideOthersStartingUp<T>(step: () => T): T {
  const deadline = performance.now() + 10_000;
  for (;;) {
    try {
      return step();
    } catch (error) {
      const cause = (error as Error & { cause?: Error }).cause;
      const message = `${(error as Error).message} ${cause?.message ?? ""}`;
      if (performance.now() > deadline || !/already exists|database is locked/.test(message)) throw error;
      Bun.sleepSync(5 + Math.random() * 20);
    }
  }
}

/** One open transaction level: the failure of a level nested in it, if one failed. */
interface Level {
  nestedFailure?: { error: unknown };
}

/** What a write transaction needs of its connection, kept once per connection: its statements, prepared once, and its open levels. */
interface TransactionStatements {
  /** The levels open now, outermost first. */
  levels: Level[];
  begin: Statement;
  commit: Statement;
  rollback: Statement;
  savepoint: Statement;
  release: Statement;
  rollbackTo: Statement;
}
const transactionStatements = new WeakMap<Database, TransactionStatements>();

function statementsOf(sqlite: Database): TransactionStatements {
  let statements = transactionStatements.get(sqlite);
  if (!statements) {
    statements = {
      levels: [],
      begin: sqlite.prepare("BEGIN IMMEDIATE"),
      commit: sqlite.prepare("COMMIT"),
      rollback: sqlite.prepare("ROLLBACK"),
      savepoint: sqlite.prepare('SAVEPOINT "nested"'),
      release: sqlite.prepare('RELEASE "nested"'),
      rollbackTo: sqlite.prepare('ROLLBACK TO "nested"'),
    };
    transactionStatements.set(sqlite, statements);
  }
  return statements;
}

/**
 * Runs `fn` in a write transaction taken up front (BEGIN IMMEDIATE), so a read-then-write
 * inside it can never fail half-way on a lock upgrade; nested in another, it is a savepoint
 * (with the statements prepared once instead of a wrapper built per call: writes run it twice
 * a request). `fn` must stay synchronous: with bun:sqlite an `await` inside would let the
 * transaction commit before the rest ran.
 *
 * A nested level that fails fails the level around it, caught or not: that level rolls back
 * and throws the nested failure when it ends, as PostgreSQL's transactions do (a nested one
 * joins the one around it there: shared/db/postgres.ts). `contained` makes a level whose
 * failure its caller handles: the group commit's savepoint per request, one of which may fail
 * while the others of the group commit.
 */
export function writeTransaction<T>(db: Db, fn: () => T, options: { contained?: boolean } = {}): T {
  const sqlite = db.$client;
  // A write never runs inside the turn's read snapshot (turn-snapshot.ts): it ends here.
  endTurnSnapshot(sqlite);
  const statements = statementsOf(sqlite);
  const { levels } = statements;
  const nested = sqlite.inTransaction;
  const level: Level = {};
  (nested ? statements.savepoint : statements.begin).run();
  levels.push(level);
  try {
    const result = fn();
    if (result instanceof Promise) {
      // Throwing here rolls back what ran so far, instead of committing half a change.
      throw new TypeError("writeTransaction callbacks must be synchronous (bun:sqlite would commit at the first await).");
    }
    if (level.nestedFailure) throw level.nestedFailure.error;
    (nested ? statements.release : statements.commit).run();
    return result;
  } catch (error) {
    // Recorded first: a rollback that fails itself still fails the level around.
    const around = levels.at(-2);
    if (nested && around && !options.contained) around.nestedFailure ??= { error };
    if (sqlite.inTransaction) {
      if (nested) {
        statements.rollbackTo.run();
        statements.release.run();
      } else {
        statements.rollback.run();
      }
    }
    throw error;
  } finally {
    levels.pop();
  }
}

/**
 * A named parameter usable in `update().set()`, whose types accept SQL but not a bare
 * placeholder; bound at execution like any `sql.placeholder`.
 */
export const setParam = (name: string): SQL => sql`${sql.placeholder(name)}`;

/** Whether a transaction is open on the connection (a new one would be a savepoint of it). */
export const inTransaction = (db: Db): boolean => inOwnTransaction(db.$client);

/** The SQLite file's size in bytes: its pages times their size (the WAL not included). */
export function fileBytes(sqlite: { prepare(text: string): { get(): unknown } }): number {
  const pages = (sqlite.prepare("PRAGMA page_count").get() as { page_count: number }).page_count;
  return pages * (sqlite.prepare("PRAGMA page_size").get() as { page_size: number }).page_size;
}

/** Closes the database's connection (process shutdown, the end of a command). */
export function closeDatabase(db: Db): void {
  endTurnSnapshot(db.$client);
  db.$client.close();
}

/**
 * Converts a file made before this version (`auto_vacuum = NONE`, which keeps every freed page
 * inside the file) to `INCREMENTAL`: SQLite takes the change only with a VACUUM, which rewrites
 * the whole file, so other processes' writes wait for it (run it in a quiet hour, or with the
 * service stopped). Answers the file's size before and after; a file already incremental is
 * left as it is.
 */
export function convertToIncrementalVacuum(db: Db): { converted: boolean; bytesBefore: number; bytesAfter: number } {
  const sqlite = db.$client;
  const bytesBefore = fileBytes(sqlite);
  if ((sqlite.query("PRAGMA auto_vacuum").get() as { auto_vacuum: number }).auto_vacuum === 2) return { converted: false, bytesBefore, bytesAfter: bytesBefore };
  sqlite.exec("PRAGMA auto_vacuum = INCREMENTAL");
  sqlite.exec("VACUUM");
  return { converted: true, bytesBefore, bytesAfter: fileBytes(sqlite) };
}
