import type { QueueName } from "../jobs/catalog.ts";
import type { Db } from "./client.ts";

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

/**
 * The outbox's life cycle: written with the change (outbox-writer.store.ts), handed to Redis
 * (`relayed_at`), done when its effect reached an outcome (`completed_at`, set by the worker).
 */
export function createOutboxStore(db: Db) {
  const sqlite = db.$client;
  const pending = sqlite.prepare<OutboxRow, { limit: number }>(
    "SELECT id, queue, name, payload FROM outbox WHERE relayed_at IS NULL ORDER BY id LIMIT $limit",
  );
  const markRelayed = sqlite.prepare("UPDATE outbox SET relayed_at = $now WHERE id = $id AND relayed_at IS NULL");
  const unfinished = sqlite.prepare<OutboxRow, { afterId: number; relayedBefore: number; limit: number }>(
    `SELECT id, queue, name, payload FROM outbox
     WHERE relayed_at IS NOT NULL AND completed_at IS NULL AND id > $afterId AND relayed_at < $relayedBefore
     ORDER BY id LIMIT $limit`,
  );
  const payloadOf = sqlite.prepare<StoredPayload, [number]>("SELECT queue, name, payload FROM outbox WHERE id = ?");
  const markCompleted = sqlite.prepare("UPDATE outbox SET completed_at = $now WHERE id = $id AND completed_at IS NULL");
  const backlog = sqlite.prepare<{ n: number }, []>("SELECT count(*) AS n FROM outbox WHERE relayed_at IS NULL");
  const unfinishedCount = sqlite.prepare<{ n: number }, []>(
    "SELECT count(*) AS n FROM outbox WHERE relayed_at IS NOT NULL AND completed_at IS NULL",
  );

  const each = (statement: typeof markRelayed) => (ids: readonly number[], now: number) =>
    sqlite.transaction(() => {
      for (const id of ids) statement.run({ id, now });
    }).immediate();

  const markEachRelayed = each(markRelayed);
  const markEachCompleted = each(markCompleted);

  // One API process per SQLite file relays (several would share the file's single writer
  // anyway); a row handed over twice after a crash is one job in Redis (its id).
  return {
    /** Hands up to `limit` pending rows, oldest first, to `handOver`, then marks them relayed; returns how many. */
    async relayPending(limit: number, now: () => number, handOver: (rows: OutboxRow[]) => Promise<void>): Promise<number> {
      const rows = pending.all({ limit });
      if (rows.length === 0) return 0;
      await handOver(rows);
      markEachRelayed(
        rows.map((r) => r.id),
        now(),
      );
      return rows.length;
    },
    /** Rows handed to Redis before `relayedBefore` whose effect is not recorded, after `afterId`: `check` says which are done. */
    async reconcileUnfinished(
      afterId: number,
      relayedBefore: number,
      limit: number,
      check: (rows: OutboxRow[]) => Promise<{ completed: number[] }>,
      now: () => number,
    ): Promise<OutboxRow[]> {
      const rows = unfinished.all({ afterId, relayedBefore, limit });
      if (rows.length === 0) return rows;
      const { completed } = await check(rows);
      markEachCompleted(completed, now());
      return rows;
    },
    markCompleted: markEachCompleted,
    /** The worker: the row of a job that carries no payload (`payloadInOutbox`); undefined when the row is gone. */
    payload: (id: number): StoredPayload | undefined => payloadOf.get(id) ?? undefined,
    /** Rows committed but not yet in Redis: a metric, and what a drain waits for. */
    backlog: () => backlog.get()!.n,
    /** Rows in Redis (or lost from it) whose effect is not recorded yet. */
    unfinishedCount: () => unfinishedCount.get()!.n,
  };
}

