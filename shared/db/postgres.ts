import { AsyncLocalStorage } from "node:async_hooks";
import { SQL } from "bun";
import { resolve } from "node:path";
import { sql } from "drizzle-orm";
import { drizzle, type BunSQLDatabase } from "drizzle-orm/bun-sql";
import { migrate } from "drizzle-orm/bun-sql/migrator";
import { DomainError } from "../errors.ts";
import { dispatch, freshTransactionState, settlePending, type PgContext, type PgExecutor, type PgQuery } from "./sql.ts";
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

/** The open transaction of this call chain, if any: its connection, state and after-commit hooks. */
interface OpenTransaction extends PgContext {
  client: SQL;
  afterCommit: (() => void)[];
  /** Aborted when the caller gives up: a connection not yet reserved is then never taken. */
  reservation: AbortController;
}
const openTransaction = new AsyncLocalStorage<OpenTransaction>();

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

/** The open transaction of `client` in this call chain, for the statements of `postgresSql`. */
export const transactionOf = (client: SQL) => (): PgContext | undefined => {
  const open = openTransaction.getStore();
  return open && open.client === client ? open : undefined;
};

/**
 * Runs `fn` outside any open transaction: for work a transaction *starts* but that must run
 * beside it (kicking the outbox relay), which would otherwise inherit its context and run its
 * statements on the transaction, reading rows that may yet roll back.
 */
export const outsideTransaction = <T>(fn: () => T): T => openTransaction.exit(fn);

export interface PgTransactionOptions {
  /** Tries in all when PostgreSQL answers a serialization failure or a deadlock. */
  attempts?: number;
  /** The whole transaction, retries included, ends within this bound (a 503, never a hang). */
  deadlineMs?: number;
}

/**
 * PostgreSQL cannot be reached, or did not answer in time: 503 with Retry-After, the request
 * may be repeated. The message is the same whatever happened: the driver's text carries SQL and
 * its parameters (stored data), so it stays on the error as `cause`, for a debug log only.
 */
export function databaseUnavailable(cause?: unknown): DomainError {
  const error = new DomainError("service_unavailable", "The database is not available. Retry after 2 s.", undefined, 2);
  if (cause !== undefined) (error as { cause?: unknown }).cause = cause;
  return error;
}

/**
 * Runs `fn` in one PostgreSQL transaction on one pooled connection; the stores' statements
 * find it through AsyncLocalStorage. A serialization failure or deadlock rolls back and runs
 * `fn` again (`fn` must be safe to repeat: it only talks to the database), a bounded number of
 * times with a short random pause; a connection failure, a statement timeout, or the deadline
 * passing becomes `service_unavailable`.
 *
 * BEGIN is sent without waiting, ahead of the body's first statement: a transaction costs the
 * round trips of the reads it decides on, one for its writes (sent without waiting, `send`),
 * and the COMMIT's.
 *
 * The deadline cancels, it does not only stop waiting: the transaction is marked abandoned, its
 * running statement is cancelled, and any later statement (or the COMMIT, which follows only a
 * body that finished unabandoned) throws instead, so the transaction is rolled back. A request
 * answered 503 leaves nothing that commits later. The one window left is a COMMIT already sent
 * when the deadline passes: its outcome cannot be known, which is what `Idempotency-Key` is for.
 */
export async function pgTransaction<T>(client: SQL, fn: () => Promise<T>, options: PgTransactionOptions = {}): Promise<T> {
  const open = openTransaction.getStore();
  if (open && open.client === client) return joined(open, fn);
  const attempts = options.attempts ?? 5;
  const deadline = performance.now() + (options.deadlineMs ?? 4500);
  for (let attempt = 1; ; attempt++) {
    const transaction: OpenTransaction = {
      client,
      executor: undefined as unknown as PgExecutor,
      state: freshTransactionState(),
      afterCommit: [],
      reservation: new AbortController(),
    };
    try {
      const result = await withinDeadline(runOnReservedConnection(transaction, fn), deadline - performance.now(), (late) => abandon(transaction, late));
      for (const hook of transaction.afterCommit) openTransaction.exit(hook);
      return result;
    } catch (error) {
      if (isRetryableConflict(error) && attempt < attempts && performance.now() < deadline) {
        await Bun.sleep(Math.min(5 * attempt + Math.random() * 10 * attempt, Math.max(0, deadline - performance.now())));
        continue;
      }
      if (isConnectionFailure(error)) throw databaseUnavailable(error);
      throw error;
    }
  }
}

/** Answered by a COMMIT the server turned into a rollback: a statement of the transaction had failed. */
const rolledBack = () => Object.assign(new Error("COMMIT was rolled back by the server: a statement of the transaction had failed"), { errno: "25P02" });

/**
 * One attempt of `pgTransaction`: BEGIN, the body, COMMIT on one reserved connection, which
 * goes back to the pool after COMMIT or ROLLBACK. Throws the first failure of a write sent
 * without waiting in preference to what it caused (a later statement's "transaction aborted").
 *
 * The COMMIT waits for the writes still out, and goes only if none failed and the caller still
 * waits. Sent behind them instead, it would commit a change whose request was answered 503: a
 * write waiting on a row lock (a busy workspace's feed position) past the deadline cannot be
 * taken back once the COMMIT is queued behind it.
 */
async function runOnReservedConnection<T>(transaction: OpenTransaction, fn: () => Promise<T>): Promise<T> {
  const { state } = transaction;
  // A reservation still waiting for a connection when the deadline passes is dropped, so
  // requests already answered 503 do not take connections ahead of live ones.
  const connection = await transaction.client.reserve({ signal: transaction.reservation.signal });
  transaction.executor = connection as unknown as PgExecutor;
  try {
    dispatch(transaction, "BEGIN", []);
    const result = await openTransaction.run(transaction, fn);
    await settlePending(state);
    // Abandoned while its last statement ran, or a nested transaction failed (and was caught): no COMMIT.
    if (state.abandoned) throw state.abandoned;
    if (state.nestedFailure) throw state.nestedFailure.error;
    const commit = connection.unsafe("COMMIT", []);
    state.running = commit as unknown as PgQuery;
    // A statement that failed, caught by the body, leaves the transaction aborted on the
    // server, and its COMMIT answers ROLLBACK: that is no success.
    if (((await commit) as unknown as { command?: string }).command === "ROLLBACK") throw rolledBack();
    return result;
  } catch (error) {
    // Abandoned, the caller has its answer already: what follows only decides when the
    // connection goes back to the pool, never inside a transaction (ROLLBACK first).
    await Promise.allSettled(state.pending);
    await connection.unsafe("ROLLBACK", []).catch(() => {});
    throw state.failed ?? error;
  } finally {
    connection.release();
  }
}

/**
 * A transaction inside another of the same database joins it, under its retries and deadline:
 * no savepoint, which was a statement more in every change (the router's transaction holds the
 * service's). Its failure fails the transaction around it, caught or not: that transaction's
 * next statement and its COMMIT throw it, so nothing of it commits (as on SQLite, where the
 * nested level fails the one around it: shared/db/client.ts).
 */
async function joined<T>(open: OpenTransaction, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    open.state.nestedFailure ??= { error };
    throw error;
  }
}

/** The caller gave up on `transaction`: nothing more of it runs, and what runs is cancelled. */
function abandon(transaction: OpenTransaction, reason: Error): void {
  transaction.state.abandoned = reason;
  transaction.reservation.abort(reason);
  const running = transaction.state.running;
  if (running) {
    running.cancel();
    running.catch(() => {});
  }
}

/**
 * Rejects with `service_unavailable` once `ms` have passed, after telling `onLate` (which
 * cancels the work); the work's own later failure is then nobody's to handle.
 */
export function withinDeadline<T>(work: Promise<T>, ms: number, onLate?: (reason: Error) => void): Promise<T> {
  // One promise and one timer, settled by whichever comes first: every PostgreSQL request
  // bounds two waits (its key's revision, its statements), so no race and no async wrapper.
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      const reason = databaseUnavailable(new Error(`no answer within ${Math.round(ms)} ms`));
      work.catch(() => {});
      onLate?.(reason);
      reject(reason);
    }, Math.max(0, ms));
    work.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
