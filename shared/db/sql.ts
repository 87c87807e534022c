import type { Database as SqliteDatabase, Statement as SqliteStatement } from "bun:sqlite";
import { getTableColumns, type InferSelectModel, type Table } from "drizzle-orm";
import { fileBytes } from "./client.ts";
import { run, step, type Flow } from "./flow.ts";
import { keptUntilCommit } from "./kept-until-commit.ts";
import { endTurnSnapshot, joinTurnSnapshot } from "./turn-snapshot.ts";
import { hasCommitsToWatch } from "./wal-commits.ts";

/**
 * The data layer's one language: SQL text written once, with named parameters (`$orgId`), that
 * both engines run. A store prepares its statements once from an `Sql` and calls them; the
 * engine's adapter (shared/db/database.ts) turns the text into its own form:
 *
 * - SQLite (bun:sqlite) binds `$name` as written and answers plainly, synchronously;
 * - PostgreSQL (Bun's client) numbers the parameters (`$1`, `$2` …) once, runs the text as a
 *   prepared statement on the transaction's connection or the pool, and answers promises.
 *
 * The text is the common subset of the two dialects (`ON CONFLICT`, `RETURNING`, `CASE`,
 * `coalesce`, `CAST(… AS INTEGER)`, `COLLATE "C"`, which SQLite reads as `BINARY`); what
 * differs lives here, declared per statement, never as an `if (engine)` in a store: row locks
 * (`lock`), how a row's values come back (`decode`), which unique index's refusal is a domain
 * answer (`unique`); and the one question the common SQL cannot ask (`tableBytes`).
 *
 * Every call answers a lazy flow (shared/db/flow.ts): the statement runs when the caller's flow
 * drives it (`yield* statement.get(…)`), not when it is called. A store call someone forgot to
 * `yield*` therefore does nothing on SQLite as on PostgreSQL, and the suite that runs on SQLite
 * sees the same missing write that PostgreSQL would.
 */
export type Params = Record<string, unknown>;

export interface Statement<R> {
  /** Every row. */
  all(params?: Params): Flow<R[]>;
  /** The first row, or undefined. */
  get(params?: Params): Flow<R | undefined>;
  /** How many rows it wrote (inserted, updated or deleted). */
  run(params?: Params): Flow<number>;
  /**
   * A write whose answer nobody reads (a new row, a stored response): inside a PostgreSQL
   * transaction it is sent without waiting for the server, so a change's writes travel
   * together (pipelined) and the transaction waits once, before its COMMIT, instead of once
   * per statement. Its failure fails the whole transaction (nested ones included): the next
   * statement that waits throws it, or the commit does. Counted as one row written. Outside a
   * transaction, and on SQLite, it is `run`.
   */
  send(params?: Params): Flow<void>;
  /**
   * `run` and `send` with the parameters given by position, in the order each `$name` first
   * appears in the text. For statements of many rows (`insertRows`): a named object of
   * hundreds of parameters costs more to build and to read back in the statement's order than
   * the values themselves (PostgreSQL creates: 9.7% of the API's time, 1.9% after). A refusal
   * by the statement's `unique` index is the driver's own error here: no one row's parameters
   * can name it.
   */
  runValues(values: unknown[]): Flow<number>;
  sendValues(values: unknown[]): Flow<void>;
}

/**
 * Row locks, for a read a transaction decides on. Either engine's answer is the same: the rows
 * read cannot change under the transaction until it ends.
 * - `update`: inside a transaction, the rows read are locked until it ends (PostgreSQL `FOR
 *   UPDATE`: a second transaction reading them waits, then reads what the first committed). On
 *   SQLite every write transaction already holds the file's one write lock from its BEGIN, so
 *   nothing is added there. Outside a transaction (a GET) the read takes no lock.
 * - `skip-locked`: the same, but rows another transaction holds are passed over (PostgreSQL
 *   `FOR UPDATE SKIP LOCKED`): work queues read by several processes.
 * - `share`: the rows read cannot change or go until the transaction ends, but other
 *   transactions may read them with `share` meanwhile (PostgreSQL `FOR SHARE`): a parent that
 *   a new child refers to (a customer under its new onboarding), so creates under one parent
 *   do not queue one behind the other while a change of the parent (`update`) still waits for
 *   them all. A transaction that holds `share` must not go on to change the row (two of them
 *   would deadlock).
 */
export type Lock = "update" | "skip-locked" | "share";

/**
 * A unique index whose refusal of a write is a domain answer, not a failure: two requests that
 * decided, each in its own transaction, that a value was free (a slug) both write it, and the
 * index refuses the second. Both engines name the index differently (PostgreSQL by its name,
 * SQLite by its table's columns), so both are given.
 */
export interface UniqueIndex {
  index: string;
  table: string;
  columns: readonly string[];
  /** The error to throw instead, from the statement's parameters. */
  error: (params: Params) => Error;
}

export interface StatementOptions<R> {
  /** How a row as the driver returns it becomes the store's row (see `rowOf`, `decoder`). */
  decode?: Decoder<R>;
  lock?: Lock;
  unique?: UniqueIndex;
  /**
   * SQLite: a read outside any transaction joins the read transaction its event-loop turn
   * shares with the other reads that ask (shared/db/turn-snapshot.ts); for the GETs' lookups,
   * whose answer may come from any moment after their request arrived. PostgreSQL ignores it.
   */
  turnSnapshot?: boolean;
  /**
   * SQLite in WAL mode: `get`'s answers are kept, per parameters, until any connection of any
   * process commits (shared/db/kept-until-commit.ts); for a small value every request needs and
   * few changes move. PostgreSQL ignores it (no commit to watch without a statement).
   */
  keptUntilCommit?: boolean;
}

/** The statement's own error for a refusal by its unique index, or the driver's error unchanged. */
function refusedBy(unique: UniqueIndex | undefined, error: unknown, params: Params): unknown {
  if (!unique) return error;
  const e = error as { code?: unknown; errno?: unknown; constraint?: unknown; message?: unknown };
  const sqlite = e.code === "SQLITE_CONSTRAINT_UNIQUE" && String(e.message).includes(unique.columns.map((c) => `${unique.table}.${c}`).join(", "));
  const postgres = e.errno === "23505" && e.constraint === unique.index;
  return sqlite || postgres ? unique.error(params) : error;
}

export interface Sql {
  readonly engine: "sqlite" | "postgres";
  /**
   * Whether a read's answer can be kept until the next commit (`keptUntilCommit`): SQLite in
   * WAL mode, whose commits every process sees from memory (shared/db/wal-commits.ts). For a
   * value only worth reading where it can be kept; PostgreSQL has no such watch.
   */
  readonly keepsUntilCommit: boolean;
  statement<R = Record<string, unknown>>(text: string, options?: StatementOptions<R>): Statement<R>;
  /** Runs `fn` once the transaction this call runs in has committed (never if it rolls back); outside one, on the next turn. */
  afterCommit(fn: () => void): void;
  /**
   * What a table and its indexes take on disk, in bytes: each engine's own catalogue (SQLite's
   * `dbstat`, PostgreSQL's `pg_total_relation_size`), the one question the common SQL cannot ask.
   */
  tableBytes(table: string): Flow<number>;
  /** What the whole database takes on disk, in bytes (SQLite's main file; PostgreSQL's `pg_database_size`). */
  databaseBytes(): Flow<number>;
  /**
   * Hands up to `pages` free pages back to the file system; answers how many bytes it did.
   * SQLite frees pages inside its file until `incremental_vacuum` truncates it (a file created
   * by this version is `auto_vacuum = INCREMENTAL`); PostgreSQL's autovacuum does its own, so
   * there it does nothing.
   */
  reclaim(pages: number): Flow<number>;
  /**
   * A list of rows handed to a statement as one parameter and read there as a table: the
   * statement's `FROM` names `rowSet("claims", { apiKeyId: "text", … })`, and its parameter
   * `$claims` holds the rows as a JSON array of objects with those fields (`jsonRows`). One
   * statement then writes or reads a whole batch's rows, however many, with one prepared text
   * (changes made together: api/http/together.ts). Each engine reads the JSON with its own
   * function (PostgreSQL `json_to_recordset`, SQLite `json_each`); the table is aliased with
   * the parameter's name and its columns keep the fields' names (`claims."apiKeyId"`).
   */
  rowSet(param: string, columns: Readonly<Record<string, RowSetType>>): string;
  /**
   * A condition: `column` is one of the strings in `$param`, a JSON array of them
   * (`jsonList`). For looking rows up by a batch's keys (`WHERE ${oneOf("id", "ids")}`) with one
   * prepared text, through the column's index on both engines. Not `IN (SELECT … FROM
   * rowSet(…))`: PostgreSQL reckons a JSON set-returning function at 100 rows, and with that
   * its generic plan for a table of a few thousand rows was a sequential scan of all of them,
   * per batch (2.3 ms a batch of PATCHes on 2,000 onboardings; bench/RESULTS.md, #26's twelfth
   * pass). An array compared with `= ANY` is looked up in the index whatever its length.
   */
  oneOf(column: string, param: string): string;
  /**
   * A lookup of one row that is made together with the other lookups of the same moment: on
   * PostgreSQL, outside a transaction, the calls made before the current microtasks run out
   * share one statement (`many`, given every call's parameters, up to `READ_TOGETHER_MAX`),
   * and each call answers the first row of it that `matches` its own parameters. A read is one
   * round trip and one statement's fixed cost in PostgreSQL however many requests ask (the
   * per-tick loader of GraphQL's DataLoader); a lone call waits for nothing more than one
   * statement, as before. Inside a transaction, and on SQLite (which answers on the spot, with
   * no round trip to share), `one` runs as it is.
   */
  readTogether<P, R>(one: (params: P) => Flow<R | undefined>, many: (params: readonly P[]) => Flow<R[]>, matches: (row: R, params: P) => boolean): (params: P) => Flow<R | undefined>;
}

/** Calls of one moment that `readTogether` makes in one statement at most; the next start another. */
export const READ_TOGETHER_MAX = 64;

/** The type of a `rowSet` column: JSON strings, integers (to 2^53), floating-point numbers, or booleans (SQLite's 1 and 0). */
export type RowSetType = "text" | "integer" | "real" | "boolean";

/** A `rowSet` parameter's value. */
export const jsonRows = (rows: readonly object[]): string => JSON.stringify(rows);
/** A `oneOf` parameter's value. */
export const jsonList = (values: readonly string[]): string => JSON.stringify(values);

const PG_ROW_SET_TYPE: Record<RowSetType, string> = { text: "text", integer: "bigint", real: "double precision", boolean: "boolean" };

/** Rows per statement for a list of ids (`IN (…)`) or of rows (`insertRows`): a list is run in chunks of these sizes, so at most 7 statements are prepared. */
const ID_CHUNKS = [64, 32, 16, 8, 4, 2, 1];

/**
 * A statement over a list of ids, written once with `$ids` standing for the list
 * (`UPDATE outbox SET … WHERE id IN ($ids)`): run in chunks of fixed sizes, one statement per
 * chunk, answering the rows written in all.
 */
export function forIds(sql: Sql, text: string): (ids: readonly (string | number)[], params?: Params) => Flow<number> {
  const bySize = new Map(ID_CHUNKS.map((size) => [size, sql.statement(text.replace("$ids", Array.from({ length: size }, (_, i) => `$id_${i}`).join(", ")))]));
  return function* (ids, params = {}) {
    let from = 0;
    let written = 0;
    for (const size of ID_CHUNKS) {
      while (ids.length - from >= size) {
        const values: Params = { ...params };
        for (let i = 0; i < size; i++) values[`id_${i}`] = ids[from + i];
        written += yield* bySize.get(size)!.run(values);
        from += size;
      }
    }
    return written;
  };
}

export interface InsertRows<R> {
  /** Writes the rows; answers how many it wrote. */
  (rows: readonly R[]): Flow<number>;
  /** Writes the rows without waiting for the answer (see `Statement.send`). */
  send(rows: readonly R[]): Flow<void>;
}

const PARAMETER = /\$([A-Za-z_][A-Za-z0-9_]*)/g;

/** The statement's parameter names in the order each first appears: the order both engines bind values given by position. */
export function parameterOrder(text: string): string[] {
  return [...new Set(Array.from(text.matchAll(PARAMETER), (match) => match[1]!))];
}

/**
 * Rows per INSERT statement on each engine. PostgreSQL pays a round trip per statement, so rows
 * travel 64 to a statement. SQLite pays none, and a one-row statement prepared once is the
 * cheaper way there: a 64-row statement's 704 named parameters cost more to gather and bind
 * than 64 runs of one row (activity entries: 7–9 µs a row against ~5, in one transaction).
 */
const ROW_CHUNKS = { postgres: ID_CHUNKS, sqlite: [1] } as const;

/**
 * A multi-row INSERT written once: one row per item, its `columns` read by `read`, run in
 * chunks of the engine's sizes above (on PostgreSQL one statement, and one round trip, per 64
 * rows; at most 7 statements prepared). `suffix` follows the VALUES (`ON CONFLICT … DO NOTHING`).
 * Answers the rows written.
 */
export function insertRows<R>(
  sql: Sql,
  table: string,
  columns: readonly string[],
  read: (row: R, column: string) => unknown,
  suffix = "",
  /** SQL for a column's value in place of its parameter, given the parameter and the row's index in the statement (the events' positions). */
  valueOf: (column: string, param: string, i: number) => string = (_, param) => param,
): InsertRows<R> {
  const sizes = ROW_CHUNKS[sql.engine];
  const bySize = new Map(
    sizes.map((size) => {
      const values = Array.from({ length: size }, (_, i) => `(${columns.map((c) => valueOf(c, `$${c}_${i}`, i)).join(", ")})`);
      const text = `INSERT INTO ${table} (${columns.join(", ")}) VALUES ${values.join(", ")}${suffix ? ` ${suffix}` : ""}`;
      return [size, { text, statement: sql.statement(text) }];
    }),
  );
  /**
   * Where each chunk size's values come from (which row, which column), in the order its
   * parameters first appear in the text: built once, so a chunk's values are read straight
   * into an array.
   */
  const sources = new Map(
    sizes.map((size) => {
      const at = new Map<string, { row: number; column: number }>(columns.flatMap((c, column) => Array.from({ length: size }, (_, row) => [`${c}_${row}`, { row, column }] as const)));
      return [
        size,
        parameterOrder(bySize.get(size)!.text).map((name) => {
          const source = at.get(name);
          if (!source) throw new Error(`insertRows(${table}): $${name} is not a parameter of the rows`);
          return source;
        }),
      ];
    }),
  );
  function* chunks(rows: readonly R[], write: (statement: Statement<unknown>, values: unknown[]) => Flow<number | void>): Flow<number> {
    let from = 0;
    let written = 0;
    for (const size of sizes) {
      const sourced = sources.get(size)!;
      while (rows.length - from >= size) {
        const values = new Array<unknown>(sourced.length);
        for (let k = 0; k < sourced.length; k++) {
          const { row, column } = sourced[k]!;
          // A value left undefined is NULL, on both engines.
          values[k] = read(rows[from + row]!, columns[column]!) ?? null;
        }
        written += (yield* write(bySize.get(size)!.statement, values)) ?? 0;
        from += size;
      }
    }
    return written;
  }
  const insert = ((rows: readonly R[]) => chunks(rows, (statement, values) => statement.runValues(values))) as InsertRows<R>;
  insert.send = function* (rows) {
    yield* chunks(rows, (statement, values) => statement.sendValues(values));
  };
  return insert;
}

/**
 * An UPDATE of many rows by their key, each row to values of its own, in one statement written
 * once: the rows travel as one JSON parameter (`Sql.rowSet`), and the rows to change are found
 * by the key's index (`Sql.oneOf`; joined to the JSON alone, PostgreSQL's generic plan scans
 * the table). `columns` are the columns set, with their `rowSet` types; `read` gives a row's
 * value of a column (`key` included). On PostgreSQL a batch's thirty-two one-row UPDATEs were
 * thirty-two statements for the client to send and PostgreSQL to start; this is one
 * (bench/RESULTS.md, #26's sixteenth pass). The list is MATERIALIZED, as in the API keys'
 * usage flush: SQLite otherwise reads it again, JSON and all, for each row the index finds.
 * Sent without waiting (`Statement.send`): inside a PostgreSQL transaction it travels with the
 * change's other writes.
 */
export function updateRows<R>(
  sql: Sql,
  table: string,
  key: string,
  columns: Readonly<Record<string, RowSetType>>,
  read: (row: R, column: string) => unknown,
): (rows: readonly R[]) => Flow<void> {
  const names = Object.keys(columns);
  const statement = sql.statement(
    `WITH changes AS MATERIALIZED (SELECT * FROM ${sql.rowSet("rows", { [key]: "text", ...columns })})
     UPDATE ${table} SET ${names.map((name) => `"${name}" = changes."${name}"`).join(", ")}
     FROM changes WHERE ${table}.${key} = changes."${key}" AND ${sql.oneOf(`${table}.${key}`, "keys")}`,
  );
  return function* (rows) {
    if (rows.length === 0) return;
    const values = rows.map((row) => {
      const value: Record<string, unknown> = { [key]: read(row, key) };
      for (const name of names) value[name] = read(row, name) ?? null;
      return value;
    });
    yield* statement.send({ rows: jsonRows(values), keys: jsonList(values.map((value) => value[key] as string)) });
  };
}

/**
 * `insertRows` for rows whose fields hold the columns by name: `fields` maps each column to
 * its field (`{ org_id: "orgId", … }`), and a column's value is that field's.
 */
export function insertFields<R>(
  sql: Sql,
  table: string,
  fields: Readonly<Record<string, keyof R>>,
  suffix = "",
  valueOf?: (column: string, param: string, i: number) => string,
): InsertRows<R> {
  return insertRows(sql, table, Object.keys(fields), (row: R, column) => row[fields[column]!], suffix, valueOf);
}

/** A statement that writes: its rows returned (RETURNING) or changed count as the transaction's writes. */
export const isWrite = (text: string): boolean => /^\s*(?:WITH\b[\s\S]*?\)\s*)?(INSERT|UPDATE|DELETE)\b/i.test(text);


/* ------------------------------------------------------------------------------------------ */
/* Rows: what comes back, the same on both engines.                                            */

type Kind = "number" | "boolean" | "text";

/**
 * Which fields of a row are numbers and which are flags: PostgreSQL returns `bigint` as text
 * and SQLite returns flags as 0/1, and the row a store answers has numbers and booleans on both.
 * Each adapter compiles only its own conversion (`convertFor`): on SQLite the flags, on
 * PostgreSQL the numbers; a row with nothing to convert is returned as the driver gave it.
 */
export interface Decoder<R> {
  readonly kinds: Readonly<Record<string, Kind>>;
  /** Carries the row type only. */
  readonly row?: R;
}

export const decoder = <R>(kinds: Record<string, Kind>): Decoder<R> => ({ kinds });

function convertFor<R>(engine: Sql["engine"], decode: Decoder<R> | undefined): ((row: Record<string, unknown>) => R) | undefined {
  if (!decode) return undefined;
  const fields = Object.keys(decode.kinds).filter((k) => decode.kinds[k] === (engine === "sqlite" ? "boolean" : "number"));
  if (fields.length === 0) return undefined;
  if (engine === "sqlite") {
    return (row) => {
      for (const key of fields) {
        const value = row[key];
        if (value !== null) row[key] = value === 1;
      }
      return row as R;
    };
  }
  return (row) => {
    for (const key of fields) {
      const value = row[key];
      if (typeof value === "string") row[key] = Number(value);
    }
    return row as R;
  };
}

const KIND_OF_COLUMN: Record<string, Kind> = {
  SQLiteInteger: "number",
  SQLiteReal: "number",
  SQLiteBoolean: "boolean",
  SQLiteTimestamp: "number",
};

/**
 * A table's row as its drizzle type: the select list (`"org_id" AS "orgId"`, from the schema,
 * so a renamed column fails here and in the type check) and the decoder of its values.
 * `alias` prefixes each column for joins (`o."org_id" AS "orgId"`).
 */
export function rowOf<T extends Table>(table: T, alias?: string): { columns: string; decode: Decoder<InferSelectModel<T>> } {
  const entries = Object.entries(getTableColumns(table));
  const prefix = alias ? `${alias}.` : "";
  const columns = entries.map(([key, column]) => `${prefix}"${column.name}" AS "${key}"`).join(", ");
  const kinds: Record<string, Kind> = {};
  for (const [key, column] of entries) kinds[key] = KIND_OF_COLUMN[column.columnType] ?? "text";
  return { columns, decode: decoder(kinds) };
}

/** A column's quoted SQL name, for statement text built from the schema. */
export const col = (column: { name: string }) => `"${column.name}"`;

/* ------------------------------------------------------------------------------------------ */
/* SQLite                                                                                     */

/** What the SQLite adapter needs of a connection. */
export type SqliteConnection = Pick<SqliteDatabase, "prepare" | "run" | "inTransaction" | "filename" | "query">;

/**
 * Counts the rows written by statements of this layer on one SQLite connection. A connection
 * runs one transaction at a time, synchronously, so the difference across a change is exactly
 * what that change wrote.
 */
export interface WriteCounter {
  count: number;
}

export function sqliteSql(connection: SqliteConnection, writes: WriteCounter): Sql {
  let bytes: SqliteStatement | undefined;
  let keeps: boolean | undefined;
  return {
    engine: "sqlite",
    get keepsUntilCommit() {
      return (keeps ??= hasCommitsToWatch(connection));
    },
    databaseBytes: () =>
      step(() => {
        endTurnSnapshot(connection);
        return fileBytes(connection);
      }),
    reclaim: (pages) =>
      step(() => {
        endTurnSnapshot(connection);
        const before = fileBytes(connection);
        connection.prepare(`PRAGMA incremental_vacuum(${Math.max(1, Math.floor(pages))})`).all();
        return before - fileBytes(connection);
      }),
    tableBytes: (table) =>
      step(() => {
        endTurnSnapshot(connection);
        bytes ??= connection.prepare(
          `SELECT coalesce(sum(pgsize), 0) AS bytes FROM dbstat WHERE name = $table OR name IN (SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = $table)`,
        );
        return Number((bytes.get({ table } as never) as { bytes: number }).bytes);
      }),
    // A SQLite transaction is synchronous: by the next turn it has committed or rolled back.
    afterCommit: (fn) => void setImmediate(fn),
    // json_extract answers a JSON integer as INTEGER and a string as TEXT.
    rowSet: (param, columns) =>
      `(SELECT ${Object.keys(columns).map((name) => `json_extract(value, '$.${name}') AS "${name}"`).join(", ")} FROM json_each($${param})) AS ${param}`,
    oneOf: (column, param) => `${column} IN (SELECT value FROM json_each($${param}))`,
    readTogether: (one) => one,
    statement<R>(text: string, options: StatementOptions<R> = {}): Statement<R> {
      // bun:sqlite binds `$name` from an object's `name` key (strict mode) as written. SQLite's
      // byte-wise collation is BINARY, PostgreSQL's is "C".
      const sqliteText = text.replaceAll('COLLATE "C"', "COLLATE BINARY");
      let prepared: SqliteStatement | undefined;
      const statement = () => (prepared ??= connection.prepare(sqliteText));
      const decode = convertFor("sqlite", options.decode);
      const writing = isWrite(text);
      // A statement either joins the turn's snapshot (a read that asks) or ends it (every other).
      const snapshot = options.turnSnapshot && !writing;
      const begin = snapshot ? () => joinTurnSnapshot(connection) : () => endTurnSnapshot(connection);
      /** A read, in the turn's snapshot when it asks; one the snapshot refused (busy) ends it, so the next starts afresh. */
      const reading = <T>(read: () => T): T => {
        begin();
        if (!snapshot) return read();
        try {
          return read();
        } catch (error) {
          endTurnSnapshot(connection);
          throw error;
        }
      };
      const all = (params: Params = {}): R[] => {
        const rows = reading(() => statement().all(params as never) as Record<string, unknown>[]);
        if (writing) writes.count += rows.length;
        return decode ? rows.map(decode) : (rows as R[]);
      };
      const read = (params: Params = {}): R | undefined => {
        if (writing) return all(params)[0];
        const row = reading(() => statement().get(params as never) as Record<string, unknown> | null);
        return row === null ? undefined : decode ? decode(row) : (row as R);
      };
      const get = (options.keptUntilCommit && !writing && keptUntilCommit(connection, read)) || read;
      const run = (params: Params = {}): number => {
        begin();
        let changes: number;
        try {
          changes = statement().run(params as never).changes;
        } catch (error) {
          throw refusedBy(options.unique, error, params);
        }
        if (writing) writes.count += changes;
        return changes;
      };
      // bun:sqlite binds values given as arguments by position (a `$name`'s position is where it first appears).
      const runValues = (values: unknown[]): number => {
        begin();
        const { changes } = statement().run(...(values as never[]));
        if (writing) writes.count += changes;
        return changes;
      };
      return {
        all: (params) => step(() => all(params)),
        get: (params) => step(() => get(params)),
        run: (params) => step(() => run(params)),
        send: (params) => step(() => void run(params)),
        runValues: (values) => step(() => runValues(values)),
        sendValues: (values) => step(() => void runValues(values)),
      };
    },
  };
}

/* ------------------------------------------------------------------------------------------ */
/* PostgreSQL                                                                                 */

/** Bun's SQL client, or one of its transactions: what a PostgreSQL statement runs on. */
export interface PgExecutor {
  unsafe(text: string, values: unknown[]): PgQuery;
}
export interface PgQuery extends Promise<Record<string, unknown>[] & { count: number }> {
  cancel(): unknown;
}

/** One PostgreSQL transaction's state, shared by the transactions nested in it. */
export interface PgTransactionState {
  /** Rows written by this transaction's statements so far. */
  writes: WriteCounter;
  /** Set when the caller stopped waiting: the next statement throws and the transaction rolls back. */
  abandoned: Error | null;
  /** The statement now running, so an abandoned transaction can cancel it. */
  running: PgQuery | null;
  /** Writes sent without waiting (`send`), settled before the transaction commits. */
  pending: Promise<void>[];
  /** The first failure of a write sent without waiting: the transaction's cause of failure from then on. */
  failed: unknown;
  /**
   * The first failure of a transaction nested in this one (it joined it): the transaction's
   * later statements and its commit throw it, even if the caller caught it. The caller's own
   * error, when it throws one, is what the transaction fails with (as on SQLite).
   */
  nestedFailure?: { error: unknown };
}

/** A transaction's state before its first statement. */
export const freshTransactionState = (): PgTransactionState => ({ writes: { count: 0 }, abandoned: null, running: null, pending: [], failed: undefined });

/** Why the transaction cannot go on, if it cannot: its caller gave up, a write sent without waiting failed, or a nested transaction did. */
function stopped(state: PgTransactionState): unknown {
  return state.abandoned ?? state.failed ?? state.nestedFailure?.error;
}

/**
 * Sends a statement on the transaction's connection without waiting for its answer: Bun's
 * client pipelines it behind the statements already sent, and the server runs them in order.
 * Its failure is kept as the transaction's (the server has aborted the transaction by then).
 */
export function dispatch(open: PgContext, text: string, values: unknown[], onError: (error: unknown) => unknown = (error) => error): void {
  const { state } = open;
  const cause = stopped(state);
  if (cause !== undefined) throw cause;
  state.pending.push(
    open.executor.unsafe(text, values).then(
      () => {},
      (error: unknown) => {
        state.failed ??= onError(error);
      },
    ),
  );
}

/**
 * Awaits `query`, a statement sent on the open transaction's connection: cancellable while it
 * runs (the transaction's deadline), and when it fails because a write sent earlier had failed
 * and aborted the transaction, failing with that cause instead of its own "transaction aborted"
 * (`refused` names its own failure otherwise). The caller checked `stopped` before sending it.
 */
async function awaitInTransaction<T>(state: PgTransactionState, query: PgQuery, answer: () => Promise<T>, refused: (error: unknown) => unknown = (error) => error): Promise<T> {
  state.running = query;
  try {
    return await answer();
  } catch (error) {
    await Promise.all(state.pending);
    throw state.failed ?? refused(error);
  } finally {
    if (state.running === query) state.running = null;
  }
}

/** Waits for every write sent without waiting; throws the first one's failure. */
export async function settlePending(state: PgTransactionState): Promise<void> {
  while (state.pending.length > 0) await Promise.all(state.pending.splice(0));
  if (state.failed !== undefined) throw state.failed;
}

/** The transaction a PostgreSQL statement joins, if any (shared/db/postgres.ts keeps it). */
export interface PgContext {
  /** The transaction's connection. */
  executor: PgExecutor;
  state: PgTransactionState;
}

/** `$name` → `$1`, `$2` … once per statement, and the order of the names. */
export function numberParameters(text: string): { text: string; names: string[] } {
  const names = parameterOrder(text);
  const position = new Map(names.map((name, i) => [name, i + 1]));
  const numbered = text.replace(PARAMETER, (_, name: string) => `$${position.get(name)}`);
  return { text: numbered, names };
}

/** PostgreSQL's `readTogether`: see `Sql`. `inTransaction` sends a call to `one`. */
function readTogether<P, R>(one: (params: P) => Flow<R | undefined>, many: (params: readonly P[]) => Flow<R[]>, matches: (row: R, params: P) => boolean, inTransaction: () => boolean): (params: P) => Flow<R | undefined> {
  type Waiting = { params: P; resolve: (row: R | undefined) => void; reject: (error: unknown) => void };
  let gathering: Waiting[] = [];
  /** Sends the calls gathered so far, if any: at the end of their moment, or once there are `READ_TOGETHER_MAX`. */
  const send = () => {
    const batch = gathering;
    gathering = [];
    if (batch.length === 0) return;
    // In an executor, a throw before any statement went out rejects too: each caller gets it.
    new Promise<R[]>((resolve) => resolve(run(many(batch.map((w) => w.params))))).then(
      (rows) => {
        for (const w of batch) w.resolve(rows.find((row) => matches(row, w.params)));
      },
      (error: unknown) => {
        for (const w of batch) w.reject(error);
      },
    );
  };
  return (params) => {
    if (inTransaction()) return one(params);
    return step(
      () =>
        new Promise<R | undefined>((resolve, reject) => {
          // The first call of a moment sends the statement once the calls made with it (requests
          // resumed by one answer, as a key's revision) have had their turn.
          if (gathering.length === 0) queueMicrotask(send);
          gathering.push({ params, resolve, reject });
          if (gathering.length >= READ_TOGETHER_MAX) send();
        }),
    );
  };
}

const LOCK_CLAUSE: Record<Lock, string> = { update: " FOR UPDATE", "skip-locked": " FOR UPDATE SKIP LOCKED", share: " FOR SHARE" };

export function postgresSql(pool: PgExecutor, context: () => PgContext | undefined, afterCommit: (fn: () => void) => void): Sql {
  return {
    engine: "postgres",
    keepsUntilCommit: false,
    afterCommit,
    rowSet: (param, columns) =>
      `json_to_recordset(CAST(CAST($${param} AS text) AS json)) AS ${param}(${Object.entries(columns).map(([name, type]) => `"${name}" ${PG_ROW_SET_TYPE[type]}`).join(", ")})`,
    oneOf: (column, param) => `${column} = ANY(ARRAY(SELECT json_array_elements_text(CAST(CAST($${param} AS text) AS json))))`,
    readTogether: (one, many, matches) => readTogether(one, many, matches, () => context() !== undefined),
    tableBytes: (table) => step(async () => Number((await pool.unsafe("SELECT pg_total_relation_size($1::regclass) AS bytes", [table]))[0]!.bytes)),
    reclaim: () => step(() => 0),
    databaseBytes: () => step(async () => Number((await pool.unsafe("SELECT pg_database_size(current_database()) AS bytes", []))[0]!.bytes)),
    statement<R>(text: string, options: StatementOptions<R> = {}): Statement<R> {
      const plain = numberParameters(text);
      const locked = options.lock ? plain.text + LOCK_CLAUSE[options.lock] : plain.text;
      const decode = convertFor("postgres", options.decode);
      const writing = isWrite(text);
      const values = (params: Params) => plain.names.map((name) => params[name] ?? null);

      /**
       * Runs the statement with its values `bound` in order. `params` and `unique` make a
       * refusal by the unique index the statement's own error; values given by position
       * (`runValues`) pass neither.
       */
      const execute = async (bound: unknown[], params: Params, unique: UniqueIndex | undefined): Promise<Record<string, unknown>[] & { count: number }> => {
        const open = context();
        if (!open) return pool.unsafe(plain.text, bound).catch((error: unknown) => Promise.reject(refusedBy(unique, error, params)));
        const { state } = open;
        const cause = stopped(state);
        if (cause !== undefined) throw cause;
        const query = open.executor.unsafe(locked, bound);
        const result = await awaitInTransaction(state, query, () => query, (error) => refusedBy(unique, error, params));
        if (writing) state.writes.count += result.count;
        return result;
      };
      const all = async (params: Params = {}): Promise<R[]> => {
        const rows = await execute(values(params), params, options.unique);
        return decode ? rows.map(decode) : (rows as unknown as R[]);
      };
      /** `send`, and `sendValues` (no `params`, no `unique`: see `execute`): sent without waiting inside a transaction. */
      const sendBound = (bound: unknown[], params: Params, unique: UniqueIndex | undefined): Promise<void> | void => {
        const open = context();
        if (!open) return execute(bound, params, unique).then(() => {});
        dispatch(open, locked, bound, (error) => refusedBy(unique, error, params));
        if (writing) open.state.writes.count += 1;
      };
      return {
        all: (params) => step(() => all(params)),
        get: (params) => step(async () => (await all(params))[0]),
        run: (params = {}) => step(async () => (await execute(values(params), params, options.unique)).count),
        send: (params = {}) => step(() => sendBound(values(params), params, options.unique)),
        runValues: (positional) => step(async () => (await execute(positional, {}, undefined)).count),
        sendValues: (positional) => step(() => sendBound(positional, {}, undefined)),
      };
    },
  };
}
