import type { QueueName } from "../jobs/catalog.ts";
import type { Database } from "./database.ts";
import { step, type Flow } from "./flow.ts";
import { decoder, forIds } from "./sql.ts";

export interface OutboxRow {
  id: number;
  queue: QueueName;
  name: string;
  payload: string;
}

/** What the worker reads for a job whose payload stays in its outbox row. */
export type StoredPayload = Omit<OutboxRow, "id">;

/** BullMQ's job id for an outbox row: the same on every hand-over, so Redis holds it once. */
export const outboxJobId = (id: number) => `outbox-${id}`;

/** The row an `outbox-<id>` job came from; null for jobs that did not come from the outbox. */
export function outboxIdOf(jobId: string | undefined): number | null {
  const match = jobId ? /^outbox-(\d+)$/.exec(jobId) : null;
  return match ? Number(match[1]) : null;
}

/** How long a batch's claim may be held while it is handed to Redis. */
const HAND_OVER_DEADLINE_MS = 10_000;

/**
 * The outbox's life cycle: written with the change (outbox-writer.store.ts), handed to Redis
 * (`relayed_at`), done when its effect reached an outcome (`completed_at`, set by the worker).
 *
 * Several API processes may relay at once (PostgreSQL): a batch is read with `skip-locked` and
 * held (`database.holding`) until it is in Redis and marked, so another process passes over
 * those rows and takes the next ones, and no row is handed over by two processes at once.
 * Should a process die mid-batch its transaction rolls back and the rows are pending again (the
 * job id keeps Redis from holding one twice). On SQLite one process relays per file.
 */
export function createOutboxStore(database: Database) {
  const { sql } = database;
  const columns = "id, queue, name, payload";
  const decode = decoder<OutboxRow>({ id: "number" });
  const pending = sql.statement(`SELECT ${columns} FROM outbox WHERE relayed_at IS NULL ORDER BY id LIMIT $limit`, { decode, lock: "skip-locked" });
  const markRelayed = forIds(sql, `UPDATE outbox SET relayed_at = $now WHERE id IN ($ids) AND relayed_at IS NULL`);
  const unfinished = sql.statement(
    `SELECT ${columns} FROM outbox
     WHERE relayed_at IS NOT NULL AND completed_at IS NULL AND id > $afterId AND relayed_at < $relayedBefore
     ORDER BY id LIMIT $limit`,
    { decode, lock: "skip-locked" },
  );
  const payloadOf = sql.statement<StoredPayload>(`SELECT queue, name, payload FROM outbox WHERE id = $id`);
  const markCompleted = forIds(sql, `UPDATE outbox SET completed_at = $now WHERE id IN ($ids) AND completed_at IS NULL`);
  const count = { decode: decoder<{ n: number }>({ n: "number" }) };
  const backlog = sql.statement(`SELECT CAST(count(*) AS INTEGER) AS n FROM outbox WHERE relayed_at IS NULL`, count);
  const unfinishedCount = sql.statement(`SELECT CAST(count(*) AS INTEGER) AS n FROM outbox WHERE relayed_at IS NOT NULL AND completed_at IS NULL`, count);
  const relayedAt = sql.statement(`SELECT relayed_at AS at FROM outbox WHERE id = $id`, { decode: decoder<{ at: number | null }>({ at: "number" }) });

  /** Many rows marked in one transaction: one commit on SQLite, part of the claim's transaction on PostgreSQL. */
  const markEach = (mark: typeof markRelayed) => (ids: readonly number[], now: number): Flow<number> => database.transaction(() => mark(ids, { now }));

  return {
    /** Hands up to `limit` pending rows, oldest first, to `handOver`, then marks them relayed; returns how many. */
    relayPending: (limit: number, now: () => number, handOver: (rows: OutboxRow[]) => Promise<void>): Flow<number> =>
      database.holding(function* () {
        const rows = yield* pending.all({ limit });
        if (rows.length === 0) return 0;
        yield* step(() => handOver(rows));
        yield* markEach(markRelayed)(
          rows.map((r) => r.id),
          now(),
        );
        return rows.length;
      }, HAND_OVER_DEADLINE_MS),
    /**
     * The reconciler's step: rows handed to Redis before `relayedBefore` whose effect is not
     * recorded, after `afterId`, claimed like pending ones so two processes never check (and
     * re-send) the same row at once; `check` says which are done.
     */
    reconcileUnfinished: (
      afterId: number,
      relayedBefore: number,
      limit: number,
      check: (rows: OutboxRow[]) => Promise<{ completed: number[] }>,
      now: () => number,
    ): Flow<OutboxRow[]> =>
      database.holding(function* () {
        const rows = yield* unfinished.all({ afterId, relayedBefore, limit });
        if (rows.length === 0) return rows;
        const { completed } = yield* step(() => check(rows));
        yield* markEach(markCompleted)(completed, now());
        return rows;
      }, HAND_OVER_DEADLINE_MS),
    /** The worker: these rows' effects reached their outcome (the reconciler then leaves them alone). */
    markCompleted: markEach(markCompleted),
    /** The worker: the row of a job that carries no payload (`payloadInOutbox`); undefined when the row is gone. */
    payload: (id: number) => payloadOf.get({ id }),
    /** Rows committed but not yet in Redis: a metric, and what a drain waits for. */
    *backlog(): Flow<number> {
      return (yield* backlog.get())!.n;
    },
    /** Rows in Redis (or lost from it) whose effect is not recorded yet. */
    *unfinishedCount(): Flow<number> {
      return (yield* unfinishedCount.get())!.n;
    },
    /** When the row was handed to Redis; null while it is pending. */
    *relayedAt(id: number): Flow<number | null> {
      return (yield* relayedAt.get({ id }))?.at ?? null;
    },
  };
}
