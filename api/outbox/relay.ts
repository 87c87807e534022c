import { run } from "../../shared/db/flow.ts";
import type { Clock } from "../../shared/clock.ts";
import { isDatabaseBusy } from "../../shared/db/busy.ts";
import { outboxJobId, type OutboxRow } from "../../shared/db/outbox.store.ts";
import { outsideTransaction } from "../../shared/db/postgres.ts";
import type { ApiStores } from "../stores.ts";
import { payloadInOutbox, type QueueName } from "../../shared/jobs/catalog.ts";
import type { Queues } from "../../shared/jobs/queues.ts";
import type { Logger } from "../../shared/logger.ts";

export interface RelayOptions {
  store: ApiStores["relayOutbox"];
  queues: Queues;
  clock: Clock;
  logger: Logger;
  /** Resolves true when Redis answers, within a bounded time: what a relay in back-off tries first. */
  redisAnswers: () => Promise<boolean>;
  batchSize?: number;
  /** How often rows not yet relayed are swept up (after an outage, or another process's crash). */
  sweepMs?: number;
  /** How often relayed rows without a recorded outcome are checked against Redis. */
  reconcileEveryMs?: number;
  /** A relayed row is checked once it has had this long to reach its outcome. */
  reconcileAfterMs?: number;
  /** Back-off while Redis is away: from `minBackoffMs`, doubling, at most `maxBackoffMs`. */
  minBackoffMs?: number;
  maxBackoffMs?: number;
  /**
   * When rows were written while a drain ran, the next drain waits this long first, so writes
   * that keep coming are handed over in batches rather than a few rows per drain (each drain
   * pays a read, a round trip to Redis and a commit). A kick after a quiet spell drains at once.
   */
  coalesceMs?: number;
}

/**
 * Moves committed outbox rows into BullMQ, and makes sure each one reaches its outcome.
 *
 * Each row becomes job `outbox-<id>`, so a row pushed twice (a crash between push and mark,
 * two API processes sweeping at once, the reconciler) is one job while Redis holds it.
 * `kick` runs right after a write commits; the sweep catches whatever a kick missed. A job
 * whose payload stays in the outbox (`payloadInOutbox`: activity batches) goes with no data.
 *
 * Redis holds work, not truth: a row is done when the worker records its outcome
 * (`completed_at`). The reconciler walks rows relayed long enough ago without one and asks
 * Redis about their job: a job Redis no longer has (restarted without its data, evicted) is
 * handed over again; a job Redis finished whose outcome was not recorded is marked done.
 *
 * While Redis is away the relay backs off exponentially and only pings until it answers,
 * so requests that keep writing never pay for rebuilding jobs that cannot be sent.
 */
export function createRelay(options: RelayOptions) {
  const { store, queues, clock, logger } = options;
  const batchSize = options.batchSize ?? 500;
  const reconcileAfterMicros = (options.reconcileAfterMs ?? 30_000) * 1000;
  const minBackoffMs = options.minBackoffMs ?? 100;
  const maxBackoffMs = options.maxBackoffMs ?? 5000;
  const coalesceMs = options.coalesceMs ?? 2;

  let running: Promise<void> | null = null;
  let again = false;
  let stopped = false;
  /** Set while Redis is away: the time the next attempt may run, and the current pause. */
  let backoff: { until: number; pauseMs: number; timer: ReturnType<typeof setTimeout> } | null = null;
  let reconcileCursor = 0;
  const timers: ReturnType<typeof setInterval>[] = [];

  async function push(rows: OutboxRow[]): Promise<void> {
    for (const queue of Object.keys(queues) as QueueName[]) {
      const jobs = rows.filter((r) => r.queue === queue);
      if (jobs.length === 0) continue;
      await queues[queue].addBulk(
        jobs.map((r) => ({ name: r.name, data: payloadInOutbox(queue, r.name) ? {} : JSON.parse(r.payload), opts: { jobId: outboxJobId(r.id) } })),
      );
    }
  }

  /**
   * Hands one batch over; returns how many rows it marked relayed. On SQLite a busy database
   * (another process's write lock) leaves them pending, to go again under the same job ids.
   */
  const drainOnce = (): Promise<number> => Promise.resolve(run(store.relayPending(batchSize, () => clock.nowMicros(), push)));

  function enterBackoff(error: unknown): void {
    const pauseMs = backoff ? Math.min(backoff.pauseMs * 2, maxBackoffMs) : minBackoffMs;
    if (!backoff) logger.warn("outbox relay cannot reach Redis: rows wait in the outbox, retrying with back-off", { error: (error as Error).message });
    clearTimeout(backoff?.timer);
    const timer = setTimeout(() => void kick(), pauseMs);
    timer.unref();
    backoff = { until: Date.now() + pauseMs, pauseMs, timer };
  }

  async function drain(): Promise<void> {
    if (backoff) {
      if (Date.now() < backoff.until) return; // its timer kicks again
      if (!(await options.redisAnswers())) return enterBackoff(new Error("Redis does not answer"));
    }
    do {
      again = false;
      try {
        while ((await drainOnce()) === batchSize);
      } catch (error) {
        if (isDatabaseBusy(error)) return;
        return enterBackoff(error);
      }
      if (backoff) {
        clearTimeout(backoff.timer);
        backoff = null;
        logger.info("outbox relay resumed: Redis answers again");
      }
      if (again && !stopped && coalesceMs > 0) await new Promise((resolve) => setTimeout(resolve, coalesceMs));
    } while (again && !stopped);
  }

  /**
   * Runs outside any open transaction: it is called from a change's transaction (the outbox
   * writer), and its reads must not run on it (see `outsideTransaction`).
   */
  const kick = (): Promise<void> => outsideTransaction(kickNow);

  function kickNow(): Promise<void> {
    if (running) {
      again = true;
      return running;
    }
    running = drain().finally(() => {
      running = null;
    });
    return running;
  }

  /** One step of the walk over unfinished rows; see the comment on `createRelay`. */
  async function reconcile(): Promise<{ handedOver: number; completed: number }> {
    if (backoff || stopped) return { handedOver: 0, completed: 0 };
    let handedOver = 0;
    let completed = 0;
    try {
      const rows = await run(store.reconcileUnfinished(
        reconcileCursor,
        clock.nowMicros() - reconcileAfterMicros,
        batchSize,
        async (rows) => {
          const states = await Promise.all(rows.map((r) => queues[r.queue].getJobState(outboxJobId(r.id))));
          const lost = rows.filter((_, i) => states[i] === "unknown");
          const finished = rows.filter((_, i) => states[i] === "completed" || states[i] === "failed");
          if (lost.length > 0) {
            await push(lost);
            logger.warn("outbox rows handed to Redis again: their jobs were gone", { count: lost.length, first_id: lost[0]!.id });
          }
          handedOver = lost.length;
          completed = finished.length;
          return { completed: finished.map((r) => r.id) };
        },
        () => clock.nowMicros(),
      ));
      reconcileCursor = rows.length === batchSize ? rows.at(-1)!.id : 0;
      return { handedOver, completed };
    } catch (error) {
      if (!isDatabaseBusy(error)) enterBackoff(error);
      return { handedOver: 0, completed: 0 };
    }
  }

  return {
    kick,
    reconcile,
    /** Rows committed but not yet in BullMQ: a metric, and what a drain waits for. */
    backlog: async (): Promise<number> => run(store.backlog()),
    /** Rows handed to BullMQ whose outcome is not recorded yet. */
    unfinished: async (): Promise<number> => run(store.unfinishedCount()),
    /** Whether the relay is backing off because Redis does not answer. */
    waitingForRedis: (): boolean => backoff !== null,
    start(): void {
      timers.push(setInterval(() => void kick(), options.sweepMs ?? 1000));
      timers.push(setInterval(() => void reconcile(), options.reconcileEveryMs ?? 10_000));
      for (const timer of timers) timer.unref();
    },
    /**
     * Stops sweeping and makes one last attempt to hand everything over, unless Redis is
     * known to be away: then the rows simply stay in the outbox for the next process.
     */
    async stop(): Promise<void> {
      for (const timer of timers) clearInterval(timer);
      await running;
      if (!backoff) await kick();
      stopped = true;
      clearTimeout(backoff?.timer);
    },
  };
}

export type Relay = ReturnType<typeof createRelay>;
