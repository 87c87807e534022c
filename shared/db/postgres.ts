import { AsyncLocalStorage } from "node:async_hooks";
import { SQL } from "bun";
import { resolve } from "node:path";
import { sql } from "drizzle-orm";
import { drizzle, type BunSQLDatabase } from "drizzle-orm/bun-sql";
import { migrate } from "drizzle-orm/bun-sql/migrator";
import { DomainError } from "../errors.ts";
import * as schema from "./schema.pg.ts";

/**
 * PostgreSQL through Bun's built-in SQL client and drizzle pg-core (bench/RESULTS.md has the
 * numbers against postgres.js). Every wait is bounded: connecting, each statement and each
 * lock wait, so a database that is down or failing over answers within seconds, never hangs.
 */
export type PgDb = BunSQLDatabase<typeof schema> & { $client: SQL };

export const PG_MIGRATIONS_FOLDER = resolve(import.meta.dir, "../../drizzle/postgres");

/** Any constant the whole installation agrees on: processes starting together migrate one at a time. */
const MIGRATION_LOCK = 7_250_110_001;

export interface PgOptions {
  poolSize?: number;
  /** Seconds to establish a connection. */
  connectTimeoutSeconds?: number;
  /** Longest any one statement may run (PostgreSQL's statement_timeout). */
  statementTimeoutMs?: number;
}

export function connectPostgres(url: string, options: PgOptions = {}): SQL {
  return new SQL({
    url,
    max: options.poolSize ?? 10,
    connectionTimeout: options.connectTimeoutSeconds ?? 3,
    idleTimeout: 60,
    connection: {
      application_name: "customer-onboarding",
      statement_timeout: options.statementTimeoutMs ?? 4000,
      lock_timeout: Math.min(options.statementTimeoutMs ?? 4000, 3000),
      idle_in_transaction_session_timeout: 30_000,
    } as Record<string, string | number>,
  });
}

/**
 * Brings the schema up to date under a session-level advisory lock on one dedicated
 * connection, so API and worker processes starting together apply each migration once:
 * the others wait for the lock, then find nothing left to do.
 */
export async function migratePostgres(url: string, options: { lockTimeoutMs?: number } = {}): Promise<void> {
  const client = new SQL({ url, max: 1, connectionTimeout: 5 });
  try {
    const db = drizzle(client);
    await db.execute(sql.raw(`SET lock_timeout = ${Math.max(1, Math.floor(options.lockTimeoutMs ?? 60_000))}`));
    await db.execute(sql`SELECT pg_advisory_lock(${MIGRATION_LOCK})`);
    try {
      await migrate(db, { migrationsFolder: PG_MIGRATIONS_FOLDER });
    } finally {
      await db.execute(sql`SELECT pg_advisory_unlock(${MIGRATION_LOCK})`);
    }
  } finally {
    await client.close();
  }
}

/** Connects, migrates, and answers the first query, or throws saying why. */
export async function openPostgres(url: string, options: PgOptions = {}): Promise<PgDb> {
  await migratePostgres(url);
  const client = connectPostgres(url, options);
  const db = drizzle(client, { schema }) as PgDb;
  await db.execute(sql`SELECT 1`);
  return db;
}

/** SQLSTATEs worth running a transaction again for: serialization failure and deadlock. */
export function isRetryableConflict(error: unknown): boolean {
  const state = sqlState(error);
  return state === "40001" || state === "40P01";
}

/** The connection is gone or never came: the API answers 503 and tries again later. */
export function isConnectionFailure(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === "string" && /^ERR_POSTGRES_(CONNECTION|IDLE_TIMEOUT|LIFETIME_TIMEOUT|CONNECTION_TIMEOUT)/.test(code)) return true;
  const state = sqlState(error);
  // 08xxx connection exceptions, 57P01-03 admin shutdown / crash / cannot connect now, 57014 statement timeout.
  return state !== undefined && (state.startsWith("08") || state === "57P01" || state === "57P02" || state === "57P03" || state === "57014");
}

function sqlState(error: unknown): string | undefined {
  const e = error as { errno?: unknown; code?: unknown; cause?: unknown } | null;
  if (!e) return undefined;
  if (typeof e.errno === "string" && /^[0-9A-Z]{5}$/.test(e.errno)) return e.errno;
  if (typeof e.code === "string" && /^[0-9A-Z]{5}$/.test(e.code)) return e.code;
  return e.cause ? sqlState(e.cause) : undefined;
}

export async function closePostgres(db: PgDb): Promise<void> {
  await db.$client.close();
}

/**
 * The transaction a call runs in, so a store's methods keep the engine-neutral signatures of
 * their SQLite twins (`byId(orgId, id)`): inside `pgTransaction` they run on its connection,
 * outside it on the pool.
 */
const openTransaction = new AsyncLocalStorage<{ db: PgDb; tx: PgTx; afterCommit: (() => void)[] }>();

/**
 * Runs `fn` once the open transaction has committed (not at all if it rolls back), outside its
 * context; outside a transaction, on the next turn. The outbox writer kicks the relay this
 * way, so the relay reads the rows as soon as they are visible to other connections.
 */
export function afterCommit(fn: () => void): void {
  const open = openTransaction.getStore();
  if (open) open.afterCommit.push(fn);
  else setImmediate(fn);
}

export function on(db: PgDb): PgExecutor {
  const open = openTransaction.getStore();
  return open && open.db === db ? open.tx : db;
}

/** What a drizzle query builder offers once its parameters are placeholders (`sql.placeholder`). */
interface Preparable<R> {
  prepare(name: string): { execute(values?: Record<string, unknown>): Promise<R> };
}

/**
 * A statement for a hot path, its SQL built by drizzle once. A builder turns itself into SQL
 * text on every call; on a PostgreSQL read that was about 40% of the API's CPU (drizzle's
 * `mergeQueries`, `escapeName`, `orderSelectedFields`… in a profile of `bench/run.ts --db
 * postgres read`). Outside a transaction the query drizzle prepared on the pool once (its SQL
 * text and parameter order; Bun's client prepares the text on each connection) is reused;
 * inside one, it is built on the transaction's connection per call, as any builder is.
 * `build` must take its values from placeholders named as in `values`.
 */
export function statement<R>(db: PgDb, name: string, build: (executor: PgExecutor) => Preparable<R>): (values: Record<string, unknown>) => Promise<R> {
  let onPool: ReturnType<Preparable<R>["prepare"]> | undefined;
  return (values) => {
    const open = openTransaction.getStore();
    if (open && open.db === db) return build(open.tx).prepare(name).execute(values);
    return (onPool ??= build(db).prepare(name)).execute(values);
  };
}

/**
 * Runs `fn` outside any open transaction: for work a transaction *starts* but that must run
 * beside it (kicking the outbox relay), which would otherwise inherit its context and run its
 * statements on the transaction, reading rows that may yet roll back.
 */
export const outsideTransaction = <T>(fn: () => T): T => openTransaction.exit(fn);

/** A transaction handle: what a PostgreSQL store's statements run on inside `pgTransaction`. */
export type PgTx = Parameters<Parameters<PgDb["transaction"]>[0]>[0];
/** Either the pool or a transaction: a store statement runs on whichever it is given. */
export type PgExecutor = PgDb | PgTx;

export interface PgTransactionOptions {
  /** Tries in all when PostgreSQL answers a serialization failure or a deadlock. */
  attempts?: number;
  /** The whole transaction, retries included, ends within this bound (a 503, never a hang). */
  deadlineMs?: number;
  isolationLevel?: "read committed" | "repeatable read" | "serializable";
}

/** PostgreSQL cannot be reached, or did not answer in time: 503 with Retry-After, the request may be repeated. */
export const databaseUnavailable = (detail: string) =>
  new DomainError("service_unavailable", `The database is not available (${detail}). Retry after 2 s.`, undefined, 2);

/**
 * Runs `fn` in one PostgreSQL transaction. A serialization failure or deadlock rolls back and
 * runs `fn` again (`fn` must be safe to repeat: it only talks to the database), a bounded
 * number of times with a short random pause; a connection failure, a statement timeout, or
 * the deadline passing becomes `service_unavailable`.
 */
export async function pgTransaction<T>(db: PgDb, fn: (tx: PgTx) => Promise<T>, options: PgTransactionOptions = {}): Promise<T> {
  // Inside a transaction of this database: a savepoint of it, under the outer one's retries and deadline.
  const open = openTransaction.getStore();
  if (open && open.db === db) return open.tx.transaction((tx) => openTransaction.run({ ...open, tx }, () => fn(tx)));
  const attempts = options.attempts ?? 5;
  const deadline = performance.now() + (options.deadlineMs ?? 4500);
  for (let attempt = 1; ; attempt++) {
    try {
      const afterCommit: (() => void)[] = [];
      const result = await withinDeadline(
        db.transaction((tx) => openTransaction.run({ db, tx, afterCommit }, () => fn(tx)), options.isolationLevel ? { isolationLevel: options.isolationLevel } : undefined),
        deadline - performance.now(),
      );
      for (const hook of afterCommit) openTransaction.exit(hook);
      return result;
    } catch (error) {
      if (isRetryableConflict(error) && attempt < attempts && performance.now() < deadline) {
        await Bun.sleep(Math.min(5 * attempt + Math.random() * 10 * attempt, Math.max(0, deadline - performance.now())));
        continue;
      }
      if (isConnectionFailure(error)) throw databaseUnavailable((error as Error).message);
      throw error;
    }
  }
}

/** Rejects with `service_unavailable` once `ms` have passed; the statement itself ends at statement_timeout. */
export async function withinDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(databaseUnavailable(`no answer within ${Math.round(ms)} ms`)), Math.max(0, ms));
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}
