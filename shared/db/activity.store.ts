import type { ActivityEntry } from "../jobs/catalog.ts";
import type { Flow } from "./flow.ts";
import { appendRows, insertRows, type Sql } from "./sql.ts";

/** The table's columns, named as the entry's fields. */
const FIELDS = ["request_id", "org_id", "key_id", "actor", "method", "route", "status", "address", "duration_ms", "at", "repeat_count"] as const satisfies readonly (keyof ActivityEntry)[];
/**
 * Activity entries, keyed by request id: an entry written twice (a batch delivered again, a
 * write's entry that also reached a batch) is one row. A batch is written by `insertRows`: on
 * PostgreSQL one statement (and one round trip) per 64 entries instead of one per entry; on
 * SQLite, where a statement is no round trip, one prepared one-row statement per entry.
 * Entries never written before (a flush of read calls' entries) go by `appendRows` instead: on
 * PostgreSQL one COPY per flush.
 */
export function createActivityStore(sql: Sql) {
  // An entry that stands for one call carries no repeat_count.
  const read = (entry: ActivityEntry, field: string) => (field === "repeat_count" ? (entry.repeat_count ?? 1) : entry[field as keyof ActivityEntry]);
  const conflict = "ON CONFLICT (request_id) DO NOTHING";
  const insertMany = insertRows(sql, "activity_entries", FIELDS, read, conflict);
  const appendMany = appendRows(sql, "activity_entries", FIELDS, read, conflict);
  return {
    /** A change's entry, in its transaction: sent without waiting (`Statement.send`). */
    insert: (entry: ActivityEntry) => insertMany.send([entry]),
    insertMany: (entries: readonly ActivityEntry[]): Flow<void> => insertMany.send(entries),
    /**
     * Entries no earlier write can have stored: PostgreSQL's COPY, which fails the whole call
     * (and its transaction) on a request id already stored, where `insertMany` skips it.
     */
    appendMany,
  };
}
