import type { JobName, JobPayload, QueueName } from "../jobs/catalog.ts";
import type { Flow } from "./flow.ts";
import type { Sql } from "./sql.ts";

/**
 * Writes a side effect as an outbox row. Call it inside the transaction that makes the
 * change, so the change and its effects commit (or roll back) together; the relay is kicked
 * (`onWrite`) once the transaction has committed, when the row is visible to it.
 */
export function createOutboxWriter(sql: Sql, onWrite: () => void = () => {}) {
  const insert = sql.statement(`INSERT INTO outbox (org_id, queue, name, payload, created_at) VALUES ($orgId, $queue, $name, $payload, $createdAt)`);
  return {
    *add<Q extends QueueName, N extends JobName<Q>>(orgId: string | null, queue: Q, name: N, payload: JobPayload<Q, N>, now: number): Flow<void> {
      yield* insert.run({ orgId, queue, name, payload: JSON.stringify(payload), createdAt: now });
      sql.afterCommit(onWrite);
    },
  };
}
