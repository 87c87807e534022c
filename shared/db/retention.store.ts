import type { RetainedTable } from "../retention.ts";
import type { Flow } from "./flow.ts";
import { decoder, type Sql } from "./sql.ts";

/**
 * What makes a row of each table expired (`expired`, measured on `age`), and how a slice of
 * them is deleted; `born` is when a row was written, for the status's oldest row. A slice is a
 * bounded DELETE by primary key, oldest first, so no statement holds SQLite's write lock (or
 * PostgreSQL's row locks) for long; a row whose effect is unfinished never matches (an outbox
 * row without an outcome, a delivery still `sending`).
 */
const EXPIRED: Record<RetainedTable, { key: string; expired: string; age: string; born: string }> = {
  activity_entries: { key: "request_id", expired: "at < $cutoff", age: "at", born: "at" },
  activity_pages: { key: "id", expired: "last_at < $cutoff", age: "last_at", born: "first_at" },
  events: { key: "org_id, position", expired: "created_at < $cutoff", age: "created_at", born: "created_at" },
  webhook_attempts: { key: "id", expired: "created_at < $cutoff", age: "created_at", born: "created_at" },
  deliveries: { key: "id", expired: "status <> 'sending' AND updated_at < $cutoff", age: "updated_at", born: "created_at" },
  outbox: { key: "id", expired: "completed_at IS NOT NULL AND completed_at < $cutoff", age: "completed_at", born: "created_at" },
  audit_log: { key: "id", expired: "at < $cutoff", age: "at", born: "at" },
  idempotency_keys: { key: "api_key_id, key", expired: "created_at < $cutoff", age: "created_at", born: "created_at" },
};

export function createRetentionStore(sql: Sql) {
  const prune = {} as Record<RetainedTable, ReturnType<typeof sql.statement>>;
  const status = {} as Record<RetainedTable, ReturnType<typeof sql.statement<{ rows: number; oldest: number | null }>>>;
  for (const [table, { key, expired, age, born }] of Object.entries(EXPIRED) as [RetainedTable, (typeof EXPIRED)[RetainedTable]][]) {
    prune[table] = sql.statement(`DELETE FROM ${table} WHERE (${key}) IN (SELECT ${key} FROM ${table} WHERE ${expired} ORDER BY ${age} LIMIT $limit)`);
    status[table] = sql.statement(`SELECT CAST(count(*) AS INTEGER) AS rows, min(${born}) AS oldest FROM ${table}`, {
      decode: decoder({ rows: "number", oldest: "number" }),
    });
  }
  return {
    /** Deletes at most `limit` expired rows of `table`, oldest first; answers how many. */
    pruneSlice: (table: RetainedTable, cutoff: number, limit: number): Flow<number> => prune[table].run({ cutoff, limit }),
    *status(table: RetainedTable): Flow<{ rows: number; oldest: number | null; bytes: number }> {
      const counted = (yield* status[table].get())!;
      return { ...counted, bytes: yield* sql.tableBytes(table) };
    },
  };
}
