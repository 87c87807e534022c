import type { ActivityEntry, JobName, JobPayload, QueueName } from "../jobs/catalog.ts";
import { activityRow } from "./activity.store.ts";
import { on, type PgDb } from "./postgres.ts";
import { activityEntries, outbox } from "./schema.pg.ts";

/** The PostgreSQL adapters of the activity store and the outbox writer. */
export function createPgActivityStore(db: PgDb) {
  return {
    /** An entry written twice (by request id) is one row. */
    insert: async (e: ActivityEntry) =>
      void (await on(db)
        .insert(activityEntries)
        .values(activityRow(e))
        .onConflictDoNothing({ target: activityEntries.requestId })),
  };
}

export function createPgOutboxWriter(db: PgDb, onWrite: () => void = () => {}) {
  return {
    /** Call inside the change's transaction; the relay is kicked once it has had time to commit. */
    async add<Q extends QueueName, N extends JobName<Q>>(orgId: string | null, queue: Q, name: N, payload: JobPayload<Q, N>, now: number): Promise<void> {
      await on(db).insert(outbox).values({ orgId, queue, name, payload: JSON.stringify(payload), createdAt: now });
      setImmediate(onWrite);
    },
  };
}
