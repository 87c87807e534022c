import { sql } from "drizzle-orm";
import type { Db } from "./client.ts";
import { outbox } from "./schema.ts";
import type { JobName, JobPayload, QueueName } from "../jobs/catalog.ts";

const p = sql.placeholder;

/**
 * Writes a side effect as an outbox row. Call it inside the transaction that makes the
 * change, so the change and its effects commit (or roll back) together; the relay queues it.
 */
export function createOutboxWriter(db: Db, onWrite: () => void = () => {}) {
  const insert = db
    .insert(outbox)
    .values({ orgId: p("orgId"), queue: p("queue"), name: p("name"), payload: p("payload"), createdAt: p("createdAt") })
    .prepare();
  return {
    add<Q extends QueueName, N extends JobName<Q>>(orgId: string | null, queue: Q, name: N, payload: JobPayload<Q, N>, now: number): void {
      insert.run({ orgId, queue, name, payload: JSON.stringify(payload), createdAt: now });
      // Deferred to after the current (synchronous) transaction: the relay must read committed rows.
      setImmediate(onWrite);
    },
  };
}

