import type { JobName, JobPayload, QueueName } from "../jobs/catalog.ts";
import type { Flow } from "./flow.ts";
import { insertFields, type Sql } from "./sql.ts";

interface OutboxInsert {
  orgId: string | null;
  queue: string;
  name: string;
  payload: string;
  createdAt: number;
}
const COLUMNS = { org_id: "orgId", queue: "queue", name: "name", payload: "payload", created_at: "createdAt" } as const satisfies Record<string, keyof OutboxInsert>;

/**
 * Writes a side effect as an outbox row. Call it inside the transaction that makes the
 * change, so the change and its effects commit (or roll back) together (sent without waiting:
 * `Statement.send`); the relay is kicked
 * (`onWrite`) once the transaction has committed, when the row is visible to it.
 */
export function createOutboxWriter(sql: Sql, onWrite: () => void = () => {}) {
  const insert = sql.statement(`INSERT INTO outbox (org_id, queue, name, payload, created_at) VALUES ($orgId, $queue, $name, $payload, $createdAt)`);
  const insertMany = insertFields<OutboxInsert>(sql, "outbox", COLUMNS);
  return {
    *add<Q extends QueueName, N extends JobName<Q>>(orgId: string | null, queue: Q, name: N, payload: JobPayload<Q, N>, now: number): Flow<void> {
      yield* insert.send({ orgId, queue, name, payload: JSON.stringify(payload), createdAt: now });
      sql.afterCommit(onWrite);
    },
    /** Many jobs of one name (a change's webhook deliveries, a recovery), in `insertRows`' chunks. */
    *addMany<Q extends QueueName, N extends JobName<Q>>(orgId: string | null, queue: Q, name: N, payloads: readonly JobPayload<Q, N>[], now: number): Flow<void> {
      if (payloads.length === 0) return;
      yield* insertMany.send(payloads.map((payload) => ({ orgId, queue, name, payload: JSON.stringify(payload), createdAt: now })));
      sql.afterCommit(onWrite);
    },
  };
}
