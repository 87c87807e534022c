import { and, asc, count, eq, gt, inArray, isNotNull, isNull, lt } from "drizzle-orm";
import type { QueueName } from "../jobs/catalog.ts";
import type { OutboxRow, StoredPayload } from "./outbox.store.ts";
import { pgTransaction, type PgDb } from "./postgres.ts";
import { outbox } from "./schema.pg.ts";

const columns = { id: outbox.id, queue: outbox.queue, name: outbox.name, payload: outbox.payload };

/**
 * The PostgreSQL adapter of the outbox, for several API processes relaying at once. A batch
 * is claimed with `FOR UPDATE SKIP LOCKED` inside a transaction that lasts until the batch is
 * in Redis and marked: another process skips the locked rows and takes the next ones, so no
 * row is handed over by two processes at the same time. Should a process die mid-batch, its
 * transaction rolls back and the rows are pending again (the job id keeps Redis from holding
 * one twice).
 */
export function createPgOutboxStore(db: PgDb) {
  return {
    /** Claims up to `limit` pending rows, hands them to `handOver`, marks them relayed; returns how many. */
    async relayPending(limit: number, now: () => number, handOver: (rows: OutboxRow[]) => Promise<void>): Promise<number> {
      return pgTransaction(
        db,
        async (tx) => {
          const rows = (await tx.select(columns).from(outbox).where(isNull(outbox.relayedAt)).orderBy(asc(outbox.id)).limit(limit).for("update", { skipLocked: true })) as OutboxRow[];
          if (rows.length === 0) return 0;
          await handOver(rows);
          await tx.update(outbox).set({ relayedAt: now() }).where(inArray(outbox.id, rows.map((r) => r.id)));
          return rows.length;
        },
        { deadlineMs: 10_000 },
      );
    },
    /**
     * The reconciler's step: rows relayed before `relayedBefore` without an outcome, after
     * `afterId`, claimed like pending ones so two processes never check (and re-send) the same row at once.
     */
    async reconcileUnfinished(
      afterId: number,
      relayedBefore: number,
      limit: number,
      check: (rows: OutboxRow[]) => Promise<{ completed: number[] }>,
      now: () => number,
    ): Promise<OutboxRow[]> {
      return pgTransaction(
        db,
        async (tx) => {
          const rows = (await tx
            .select(columns)
            .from(outbox)
            .where(and(isNotNull(outbox.relayedAt), isNull(outbox.completedAt), gt(outbox.id, afterId), lt(outbox.relayedAt, relayedBefore)))
            .orderBy(asc(outbox.id))
            .limit(limit)
            .for("update", { skipLocked: true })) as OutboxRow[];
          if (rows.length === 0) return rows;
          const { completed } = await check(rows);
          if (completed.length > 0) await tx.update(outbox).set({ completedAt: now() }).where(and(inArray(outbox.id, completed), isNull(outbox.completedAt)));
          return rows;
        },
        { deadlineMs: 10_000 },
      );
    },
    /** The worker: the row's effect reached its outcome. */
    markCompleted: async (ids: readonly number[], now: number) => {
      if (ids.length > 0) await db.update(outbox).set({ completedAt: now }).where(and(inArray(outbox.id, [...ids]), isNull(outbox.completedAt)));
    },
    /** The worker: the row of a job that carries no payload (`payloadInOutbox`); undefined when the row is gone. */
    payload: async (id: number): Promise<StoredPayload | undefined> =>
      (await db.select({ queue: outbox.queue, name: outbox.name, payload: outbox.payload }).from(outbox).where(eq(outbox.id, id)))[0] as StoredPayload | undefined,
    add: async (row: { orgId: string | null; queue: QueueName; name: string; payload: string; createdAt: number }) => {
      await db.insert(outbox).values(row);
    },
    backlog: async () => (await db.select({ n: count() }).from(outbox).where(isNull(outbox.relayedAt)))[0]!.n,
    unfinishedCount: async () => (await db.select({ n: count() }).from(outbox).where(and(isNotNull(outbox.relayedAt), isNull(outbox.completedAt))))[0]!.n,
    relayedAt: async (id: number) => (await db.select({ at: outbox.relayedAt }).from(outbox).where(eq(outbox.id, id)))[0]?.at ?? null,
  };
}

