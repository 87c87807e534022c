import { describeError } from "../shared/errors.ts";
import { run } from "../shared/db/flow.ts";
import { UnrecoverableError, Worker, type Job } from "bullmq";
import type { Redis } from "ioredis";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import type { TSchema } from "@sinclair/typebox";
import type { Clock } from "../shared/clock.ts";
import type { Database } from "../shared/db/database.ts";
import { JOBS, payloadInOutbox, type QueueName } from "../shared/jobs/catalog.ts";
import { within } from "../shared/within.ts";
import { closeQueues, createQueues, isConnectionError, webhookBackoff } from "../shared/jobs/queues.ts";
import { rulesFrom } from "../shared/webhooks/outbound-rules.ts";
import type { Logger } from "../shared/logger.ts";
import { lifetimesFrom, prunedCountKey, pruneExpired, type Lifetimes } from "../shared/retention.ts";
import { outboxIdOf } from "../shared/db/outbox.store.ts";
import { createDeliveries } from "./deliveries.ts";
import { launchHandlers } from "./handlers/launch-automations.ts";
import { recordHandlers } from "./handlers/records.ts";
import { createReminderScan, reminderHandlers } from "./handlers/reminders.ts";
import type { QueueHandlers } from "./handlers/types.ts";
import type { Mailer } from "./mailer.ts";
import { createSlackGateway, type SlackSettings } from "./slack.ts";
import { createWorkerStores } from "./stores.ts";
import { webhookHandlers, type WebhookSettings } from "./webhooks/deliver.ts";
import { createWebhookDeliveryStore } from "./webhooks/webhooks.store.ts";

export interface WorkerInfrastructure {
  /** SQLite or PostgreSQL: `worker/stores.ts` chooses the adapters. */
  database: Database;
  /** Workers block on Redis: this connection must have `maxRetriesPerRequest: null`. */
  connection: Redis;
  prefix: string;
  clock: Clock;
  logger: Logger;
  slack: SlackSettings;
  mailer: Mailer;
  mailFrom: string;
  concurrency: { records: number; outbound: number; webhooks: number };
  /** Outbound rules and the secret key for webhook deliveries; the strict rules and `slack.secretKey` when absent. */
  webhooks?: WebhookSettings;
  /** Seconds between reminder scans; null runs no scheduler (another worker does, or a test calls `scanReminders`). */
  reminderScanSeconds: number | null;
  /** How long each table keeps its rows; the contract's defaults when absent. */
  lifetimes?: Lifetimes;
  /** Seconds between pruning runs; null (or absent) runs no scheduler (another worker does, or a test prunes). */
  retentionPruneSeconds?: number | null;
  /** How long a job may run before BullMQ deems its worker dead and hands the job to another. */
  lockDurationMs?: number;
}

const validators = Object.fromEntries(
  Object.entries(JOBS).flatMap(([queue, jobs]) =>
    Object.entries(jobs).map(([name, schema]) => [`${queue}/${name}`, TypeCompiler.Compile(schema as TSchema)]),
  ),
);

const SCHEDULER_REENSURE_MS = 60_000;
const COMPLETION_FLUSH_MS = 20;
const COMPLETION_BATCH = 500;

/**
 * The worker process's composition root: one BullMQ worker per queue, each dispatching to
 * the handler map typed from the job catalog. A payload that does not match its schema, or
 * a job name the catalog does not know, fails at once without retries.
 *
 * A job the database fails under (SQLite busy past its timeout, PostgreSQL unreachable or
 * timing out) throws like any transient error, and BullMQ retries it: every handler is keyed
 * by its job, so the retry picks up where the failed attempt stopped.
 */
export function createWorker(infra: WorkerInfrastructure) {
  const { database, clock, logger } = infra;
  const lifetimes: Lifetimes = infra.lifetimes ?? lifetimesFrom({});
  const stores = createWorkerStores(database);
  const queues = createQueues(infra.connection, infra.prefix);
  const deliveries = createDeliveries(stores.deliveries, clock);
  const lookups = stores.lookups;
  const slack = createSlackGateway(lookups, infra.slack);
  const outboundDeps = { database, stores, clock, deliveries, lookups, slack, mailFrom: infra.mailFrom };
  const scanReminders = createReminderScan({ database, stores, clock });
  const outbox = stores.outbox;

  const handlers: { [Q in QueueName]: QueueHandlers<Q> } = {
    records: recordHandlers(stores.records, database.transaction, scanReminders, async () => {
      const pruned = await pruneExpired(database, lifetimes, clock.nowMicros());
      logger.info("expired rows pruned", { pruned });
      const counts = Object.entries(pruned).filter(([, n]) => n > 0);
      if (counts.length > 0) {
        // A count for /metrics only: Redis away loses a count, never a row (bounded: the worker's
        // connection otherwise waits for Redis without end).
        const counted = Promise.all(counts.map(([table, n]) => infra.connection.hincrby(prunedCountKey(infra.prefix), table, n)));
        await Promise.race([counted, Bun.sleep(1000)]).catch(() => {});
        counted.catch(() => {});
      }
      return pruned;
    }),
    outbound: { ...launchHandlers(outboundDeps), ...reminderHandlers({ ...outboundDeps, mailer: infra.mailer }) },
    webhooks: webhookHandlers({
      store: createWebhookDeliveryStore(database.sql),
      clock,
      settings: infra.webhooks ?? { rules: rulesFrom({}), secretKey: infra.slack.secretKey },
    }),
  };

  const dispatch = async (queue: QueueName, job: Job): Promise<unknown> => {
    const validate = validators[`${queue}/${job.name}`];
    const handler = (handlers[queue] as Record<string, (payload: unknown, job: Job) => Promise<unknown>>)[job.name];
    if (!validate || !handler) throw new UnrecoverableError(`unknown job '${job.name}' on queue '${queue}'`);
    const payload = await payloadOf(queue, job);
    if (!validate.Check(payload)) {
      const first = validate.Errors(payload).First();
      throw new UnrecoverableError(`invalid payload for ${job.name}: ${first?.path} ${first?.message}`);
    }
    return handler(payload, job);
  };

  /** The job's own data, or, for a job that carries none (`payloadInOutbox`), its outbox row's payload. */
  const payloadOf = async (queue: QueueName, job: Job): Promise<unknown> => {
    const carried = job.data as Record<string, unknown> | null;
    if (!payloadInOutbox(queue, job.name) || (carried && Object.keys(carried).length > 0)) return carried;
    const id = outboxIdOf(job.id);
    const stored = id === null ? undefined : await run(outbox.payload(id));
    // Gone, or another job's row (a database restored from before it, a job queued by hand):
    // no retry brings the payload back.
    if (stored === undefined || stored.queue !== queue || stored.name !== job.name) {
      throw new UnrecoverableError(`no payload for ${job.name} job ${job.id}: it carries none and no outbox row holds it`);
    }
    try {
      return JSON.parse(stored.payload);
    } catch {
      throw new UnrecoverableError(`invalid payload for ${job.name}: outbox row ${id} does not hold JSON`);
    }
  };

  // Outcomes recorded for outbox rows, written in one transaction per COMPLETION_FLUSH_MS
  // rather than one per job: the worker shares SQLite's single write lock with the API (and
  // on PostgreSQL it is one statement per batch instead of one per job).
  let completed: number[] = [];
  let completionTimer: ReturnType<typeof setTimeout> | undefined;
  /** Flushes still writing (PostgreSQL answers later): close waits for them before the database goes. */
  const flushing = new Set<Promise<void>>();
  const flushCompleted = (): Promise<void> => {
    clearTimeout(completionTimer);
    completionTimer = undefined;
    if (completed.length === 0) return Promise.all(flushing).then(() => {});
    const ids = completed;
    completed = [];
    const notRecorded = (error: unknown) =>
      // Not recorded: the reconciler finds these jobs finished in Redis (or runs them again,
      // which every handler survives) and records them then.
      logger.warn("outbox outcomes not recorded; the reconciler will", { count: ids.length, error: describeError(error) });
    let written: Promise<void>;
    try {
      // On SQLite the write runs here, synchronously, as before; on PostgreSQL it is awaited.
      written = Promise.resolve(run(outbox.markCompleted(ids, clock.nowMicros()))).then(() => {}, notRecorded);
    } catch (error) {
      notRecorded(error);
      written = Promise.resolve();
    }
    flushing.add(written);
    void written.finally(() => flushing.delete(written));
    return Promise.all(flushing).then(() => {});
  };
  const markCompleted = (outboxId: number) => {
    completed.push(outboxId);
    if (completed.length >= COMPLETION_BATCH) void flushCompleted();
    else completionTimer ??= setTimeout(() => void flushCompleted(), COMPLETION_FLUSH_MS);
  };

  /**
   * Runs a job and, for a job that came from the outbox, records in the database that its
   * effect reached an outcome (done, or failed for good): from then on the relay's
   * reconciler leaves the row alone. A crash before that record means the job is checked
   * again, and runs again if Redis lost it, which every handler is written to survive.
   */
  const process = (queue: QueueName) => async (job: Job) => {
    const outboxId = outboxIdOf(job.id);
    try {
      const result = await dispatch(queue, job);
      if (outboxId !== null) markCompleted(outboxId);
      return result;
    } catch (error) {
      const final = error instanceof UnrecoverableError || job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
      if (outboxId !== null && final) markCompleted(outboxId);
      throw error;
    }
  };

  const workers = (Object.keys(handlers) as QueueName[]).map((queue) => {
    const worker = new Worker(queue, process(queue), {
      connection: infra.connection,
      prefix: infra.prefix,
      concurrency: infra.concurrency[queue],
      // Webhook retries follow the contract's schedule, which the handler hands over on the error.
      settings: { backoffStrategy: webhookBackoff },
      ...(infra.lockDurationMs ? { lockDuration: infra.lockDurationMs, stalledInterval: infra.lockDurationMs } : {}),
    });
    // Connection errors repeat on every reconnection attempt; the outage is reported once by
    // the connection's owner (worker/main.ts). Anything else is worth a line each time.
    worker.on("error", (error) => {
      if (!isConnectionError(error)) logger.error("worker error", { queue, error: describeError(error) });
    });
    worker.on("failed", (job, error) =>
      logger.warn("job failed", { queue, job_id: job?.id, job: job?.name, attempts: job?.attemptsMade, error: describeError(error) }),
    );
    return worker;
  });

  // Creating a scheduler is idempotent: they are re-ensured every minute and whenever the
  // connection comes back, so a Redis that lost its data gets them back without a restart.
  const schedules = [
    { id: "reminders-scan", name: "reminders.scan", seconds: infra.reminderScanSeconds },
    { id: "retention-prune", name: "retention.prune", seconds: infra.retentionPruneSeconds ?? null },
  ] as const;
  const anyScheduled = schedules.some((s) => s.seconds !== null);
  const ensureScheduler = async (): Promise<void> => {
    for (const { id, name, seconds } of schedules) {
      if (seconds !== null) await queues.records.upsertJobScheduler(id, { every: seconds * 1000 }, { name, data: {} });
    }
  };
  const reensure = () =>
    void ensureScheduler().catch((error) => logger.warn("job schedulers not ensured; retrying", { error: (error as Error).message }));
  const scheduled = ensureScheduler();
  const schedulerTimer = anyScheduled ? setInterval(reensure, SCHEDULER_REENSURE_MS) : undefined;
  schedulerTimer?.unref();
  if (anyScheduled) infra.connection.on("ready", reensure);

  return {
    workers,
    queues,
    scanReminders,
    ready: async () => {
      await scheduled;
      await Promise.all(workers.map((w) => w.waitUntilReady()));
    },
    /**
     * Lets active jobs finish (up to `graceMs`), then closes; unfinished jobs go back to the
     * queue. With Redis away there is nothing to hand back to and nothing to wait for: the
     * workers are closed without waiting, and the caller disconnects.
     */
    async close(graceMs = 10_000): Promise<void> {
      clearInterval(schedulerTimer);
      infra.connection.off("ready", reensure);
      if (infra.connection.status !== "ready") {
        void Promise.all(workers.map((w) => w.close(true))).catch(() => {});
        void closeQueues(queues).catch(() => {});
        await within(2000, flushCompleted());
        infra.mailer.close();
        return;
      }
      // Redis may also go while draining: then stop waiting for it at once.
      let onClose!: () => void;
      const lost = new Promise<void>((resolve) => infra.connection.once("close", (onClose = resolve)));
      const drained = await within(graceMs, Promise.race([Promise.all(workers.map((w) => w.close())), lost]));
      infra.connection.off("close", onClose);
      if (!drained) logger.warn("worker drain timed out: closing with jobs still active", { grace_ms: graceMs });
      if (!drained || infra.connection.status !== "ready") await within(2000, Promise.all(workers.map((w) => w.close(true))));
      await within(2000, flushCompleted());
      await within(2000, closeQueues(queues));
      infra.mailer.close();
    },
  };
}

