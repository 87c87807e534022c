import type { ActivityEntry } from "../jobs/catalog.ts";
import type { Flow } from "./flow.ts";
import type { Sql } from "./sql.ts";

/** The table's columns, named as the entry's fields. */
const FIELDS = ["request_id", "org_id", "key_id", "actor", "method", "route", "status", "address", "duration_ms", "at", "repeat_count"] as const satisfies readonly (keyof ActivityEntry)[];
/** Rows per statement of a batch: a batch of N entries is written in chunks of these sizes (at most 7 statements to prepare). */
const CHUNKS = [64, 32, 16, 8, 4, 2, 1];

/**
 * Activity entries, keyed by request id: an entry written twice (a batch delivered again, a
 * write's entry that also reached a batch) is one row. A batch is written as multi-row
 * INSERTs of a few fixed sizes: one statement (and, on PostgreSQL, one round trip) per 64
 * entries instead of one per entry.
 */
export function createActivityStore(sql: Sql) {
  const inserts = new Map(
    CHUNKS.map((size) => {
      const rows = Array.from({ length: size }, (_, i) => `(${FIELDS.map((f) => `$${f}_${i}`).join(", ")})`);
      return [size, sql.statement(`INSERT INTO activity_entries (${FIELDS.join(", ")}) VALUES ${rows.join(", ")} ON CONFLICT (request_id) DO NOTHING`)];
    }),
  );
  const one = inserts.get(1)!;
  const params = (entries: readonly ActivityEntry[], from: number, size: number) => {
    const out: Record<string, unknown> = {};
    for (let i = 0; i < size; i++) {
      const entry = entries[from + i]!;
      for (const field of FIELDS) out[`${field}_${i}`] = entry[field];
      out[`repeat_count_${i}`] ??= 1; // an entry that stands for one call carries none
    }
    return out;
  };
  return {
    insert: (entry: ActivityEntry) => one.run(params([entry], 0, 1)),
    *insertMany(entries: readonly ActivityEntry[]): Flow<void> {
      let from = 0;
      for (const size of CHUNKS) {
        while (entries.length - from >= size) {
          yield* inserts.get(size)!.run(params(entries, from, size));
          from += size;
        }
      }
    },
  };
}
