import type { Clock } from "../../shared/clock.ts";
import { writeTransaction, type Db } from "../../shared/db/client.ts";
import type { QueueName } from "../../shared/jobs/catalog.ts";
import type { Queues } from "../../shared/jobs/queues.ts";
import type { Logger } from "../../shared/logger.ts";

interface PendingRow {
  id: number;
  queue: QueueName;
  name: string;
  payload: string;
}

export interface RelayOptions {
  db: Db;
  queues: Queues;
  clock: Clock;
  logger: Logger;
  batchSize?: number;
  /** How often rows not yet relayed are swept up (after an outage, or another process's crash). */
  sweepMs?: number;
}

/**
 * Moves committed outbox rows into BullMQ. Each row becomes job `outbox-<id>`, so a row
 * pushed twice (a crash between push and mark, two API processes sweeping at once) is one
 * job. `kick` runs right after a write commits; the sweep catches whatever a kick missed.
 */
export function createRelay(options: RelayOptions) {
  const { db, queues, clock, logger } = options;
  const batchSize = options.batchSize ?? 500;
  const pending = db.$client.prepare<PendingRow, { limit: number }>(
    "SELECT id, queue, name, payload FROM outbox WHERE relayed_at IS NULL ORDER BY id LIMIT $limit",
  );
  const markRelayed = db.$client.prepare("UPDATE outbox SET relayed_at = $now WHERE id = $id");
  const backlog = db.$client.prepare<{ n: number }, []>("SELECT count(*) AS n FROM outbox WHERE relayed_at IS NULL");

  let running: Promise<void> | null = null;
  let again = false;
  let failing = false;
  let sweep: ReturnType<typeof setInterval> | undefined;

  async function drainOnce(): Promise<number> {
    const rows = pending.all({ limit: batchSize });
    if (rows.length === 0) return 0;
    for (const queue of Object.keys(queues) as QueueName[]) {
      const jobs = rows.filter((r) => r.queue === queue);
      if (jobs.length === 0) continue;
      await queues[queue].addBulk(jobs.map((r) => ({ name: r.name, data: JSON.parse(r.payload), opts: { jobId: `outbox-${r.id}` } })));
    }
    const now = clock.nowMicros();
    writeTransaction(db, () => {
      for (const row of rows) markRelayed.run({ id: row.id, now });
    });
    return rows.length;
  }

  async function drain(): Promise<void> {
    do {
      again = false;
      try {
        while ((await drainOnce()) === batchSize);
        if (failing) logger.info("outbox relay resumed: Redis answers again");
        failing = false;
      } catch (error) {
        if (!failing) logger.warn("outbox relay cannot reach Redis: rows wait in the outbox", { error: (error as Error).message });
        failing = true;
        return;
      }
    } while (again);
  }

  const kick = (): Promise<void> => {
    if (running) {
      again = true;
      return running;
    }
    running = drain().finally(() => {
      running = null;
    });
    return running;
  };

  return {
    kick,
    /** Rows committed but not yet in BullMQ: a metric, and what a drain waits for. */
    backlog: (): number => backlog.get()!.n,
    start(): void {
      sweep = setInterval(() => void kick(), options.sweepMs ?? 1000);
      sweep.unref();
    },
    /** Stops sweeping and makes one last attempt to hand everything over. */
    async stop(): Promise<void> {
      clearInterval(sweep);
      await running;
      await kick();
    },
  };
}

export type Relay = ReturnType<typeof createRelay>;
