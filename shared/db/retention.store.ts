import type { RetainedTable } from "../retention.ts";
import type { Flow } from "./flow.ts";
import { decoder, type Sql } from "./sql.ts";

/** The tables pruned oldest first across the whole table; the feed goes by workspace (below). */
type SlicedTable = Exclude<RetainedTable, "events">;

/**
 * What makes a row of each table expired (`expired`, measured on `age`), and how a slice of
 * them is deleted; `born` is when a row was written, for the status's oldest row. A slice is a
 * bounded DELETE by primary key, oldest first, so no statement holds SQLite's write lock (or
 * PostgreSQL's row locks) for long; a row whose effect is unfinished never matches (an outbox
 * row without an outcome, a delivery still `sending`).
 */
const EXPIRED: Record<SlicedTable, { key: string; expired: string; age: string; born: string }> = {
  activity_entries: { key: "request_id", expired: "at < $cutoff", age: "at", born: "at" },
  activity_pages: { key: "id", expired: "last_at < $cutoff", age: "last_at", born: "first_at" },
  webhook_attempts: { key: "id", expired: "created_at < $cutoff", age: "created_at", born: "created_at" },
  deliveries: { key: "id", expired: "status <> 'sending' AND updated_at < $cutoff", age: "updated_at", born: "created_at" },
  outbox: { key: "id", expired: "completed_at IS NOT NULL AND completed_at < $cutoff", age: "completed_at", born: "created_at" },
  audit_log: { key: "id", expired: "at < $cutoff", age: "at", born: "at" },
  idempotency_keys: { key: "api_key_id, key", expired: "created_at < $cutoff", age: "created_at", born: "created_at" },
};

/** When a row was written, for the status's oldest row. */
const BORN = { ...Object.fromEntries(Object.entries(EXPIRED).map(([table, { born }]) => [table, born])), events: "created_at" } as Record<RetainedTable, string>;

export function createRetentionStore(sql: Sql) {
  const prune = {} as Record<SlicedTable, ReturnType<typeof sql.statement>>;
  const status = {} as Record<RetainedTable, ReturnType<typeof sql.statement<{ rows: number; oldest: number | null }>>>;
  for (const [table, { key, expired, age }] of Object.entries(EXPIRED) as [SlicedTable, (typeof EXPIRED)[SlicedTable]][]) {
    prune[table] = sql.statement(`DELETE FROM ${table} WHERE (${key}) IN (SELECT ${key} FROM ${table} WHERE ${expired} ORDER BY ${age} LIMIT $limit)`);
  }
  for (const [table, born] of Object.entries(BORN) as [RetainedTable, string][]) {
    status[table] = sql.statement(`SELECT CAST(count(*) AS INTEGER) AS rows, min(${born}) AS oldest FROM ${table}`, {
      decode: decoder({ rows: "number", oldest: "number" }),
    });
  }
  // The feed loses a prefix of each workspace's positions, never a position in the middle: the
  // feed's pages take "the oldest retained position follows the cursor" to mean nothing after
  // the cursor is gone (events.service.ts). Positions are commit order and `created_at` the
  // change's clock, so a change that committed late can sit after a younger event; ordered by
  // `created_at`, retention would take it first and leave a hole a follower reads past. A slice
  // takes the workspace's first `limit` positions and deletes those before the first one still
  // within the lifetime. Read from the primary key, it needs no index on `created_at` (one entry
  // fewer for every event written: bench/RESULTS.md, #26's twenty-ninth pass). A workspace whose
  // oldest event is young costs one probe of that key (the guard is evaluated once).
  const eventWorkspaces = sql.statement<{ orgId: string }>(`SELECT org_id AS "orgId" FROM event_positions ORDER BY org_id`);
  const pruneEvents = sql.statement(
    `WITH firsts AS MATERIALIZED (
       SELECT position, created_at FROM events
       WHERE org_id = $orgId AND (SELECT created_at FROM events WHERE org_id = $orgId ORDER BY position LIMIT 1) < $cutoff
       ORDER BY position LIMIT $limit)
     DELETE FROM events WHERE org_id = $orgId AND position IN (
       SELECT position FROM firsts WHERE position < coalesce((SELECT min(position) FROM firsts WHERE created_at >= $cutoff), $beyond))`,
  );

  const eventSlice = (orgId: string) => (cutoff: number, limit: number) => pruneEvents.run({ orgId, cutoff, limit, beyond: Number.MAX_SAFE_INTEGER });
  const tableSlice = (table: SlicedTable) => (cutoff: number, limit: number) => prune[table].run({ cutoff, limit });

  return {
    /**
     * How `table` is pruned: slices, each a function that deletes at most `limit` of its oldest
     * rows expired at `cutoff` and answers how many (fewer than `limit`: nothing older is left
     * there). One for most tables; for the feed one per workspace that has had events, each
     * deleting up to (not including) the workspace's first event still within the lifetime.
     */
    *slices(table: RetainedTable): Flow<((cutoff: number, limit: number) => Flow<number>)[]> {
      if (table !== "events") return [tableSlice(table)];
      return (yield* eventWorkspaces.all()).map((row) => eventSlice(row.orgId));
    },
    *status(table: RetainedTable): Flow<{ rows: number; oldest: number | null; bytes: number }> {
      const counted = (yield* status[table].get())!;
      return { ...counted, bytes: yield* sql.tableBytes(table) };
    },
  };
}
