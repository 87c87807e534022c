import { sql } from "drizzle-orm";
import type { ActivityEntry, JobName, JobPayload, QueueName } from "../jobs/catalog.ts";
import { activityRow } from "./activity.store.ts";
import { afterCommit, on, type PgDb } from "./postgres.ts";
import { activityEntries, outbox } from "./schema.pg.ts";

/** The PostgreSQL adapters of the activity store and the outbox writer. */
export function createPgActivityStore(db: PgDb) {
  return {
    /**
     * The SQLite twin counts the connection's changed rows; here, whether the open transaction
     * has written anything yet (PostgreSQL assigns it an id at its first write). Only a
     * comparison before and after a change is meaningful, as on SQLite.
     */
    changeCount: async (): Promise<number> =>
      (await on(db).execute<{ wrote: boolean }>(sql`SELECT pg_current_xact_id_if_assigned() IS NOT NULL AS wrote`))[0]?.wrote ? 1 : 0,
    /** An entry written twice (by request id) is one row. */
    insert: async (e: ActivityEntry) =>
      void (await on(db)
        .insert(activityEntries)
        .values(activityRow(e))
        .onConflictDoNothing({ target: activityEntries.requestId })),
    /**
     * A batch as one statement (a batch is at most 1,000 entries: 10,000 parameters, well under
     * PostgreSQL's 65,535): one round trip instead of one per entry. Entries already written
     * are skipped, as by `insert`.
     */
    insertMany: async (entries: readonly ActivityEntry[]) => {
      if (entries.length === 0) return;
      await on(db).insert(activityEntries).values(entries.map(activityRow)).onConflictDoNothing({ target: activityEntries.requestId });
    },
  };
}

export function createPgOutboxWriter(db: PgDb, onWrite: () => void = () => {}) {
  return {
    /** Call inside the change's transaction; the relay is kicked once it has had time to commit. */
    async add<Q extends QueueName, N extends JobName<Q>>(orgId: string | null, queue: Q, name: N, payload: JobPayload<Q, N>, now: number): Promise<void> {
      await on(db).insert(outbox).values({ orgId, queue, name, payload: JSON.stringify(payload), createdAt: now });
      afterCommit(onWrite);
    },
  };
}
