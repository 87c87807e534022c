import { Queue, type ConnectionOptions, type JobsOptions } from "bullmq";
import { within } from "../within.ts";
import type { QueueName } from "./catalog.ts";

/**
 * Retry policy and retention per queue. Records are cheap database writes: retry soon and
 * often. Outbound calls reach other systems: back off exponentially (2 s, 4 s, 8 s, … ~4 min).
 *
 * Retention is bounded by count as well as age, because Redis keeps everything in memory and
 * BullMQ needs `noeviction`: nothing may be evicted to make room. Duplicates are not what
 * kept jobs are for (every handler writes through a unique key in the database, and the
 * outbox decides what is done), so only a short window stays for the dashboard and for
 * diagnosis. See the README's "Failure modes" for the memory this takes.
 */
/**
 * Webhook deliveries follow the contract's schedule rather than BullMQ's exponential one:
 * the first try at once, then these pauses, each with ±10% jitter so an endpoint's retries do
 * not arrive in step. The handler computes the pause (it also honours `Retry-After`), records it
 * as the attempt's `next_attempt_at`, and hands it to BullMQ on the error (`retryInMs`).
 */
export const WEBHOOK_RETRY_PAUSES_MS = [5_000, 5 * 60_000, 30 * 60_000, 2 * 3600_000, 5 * 3600_000, 10 * 3600_000, 10 * 3600_000] as const;

/** BullMQ's custom backoff: the pause the failed attempt asked for (see WEBHOOK_RETRY_PAUSES_MS). */
export const webhookBackoff = (_attemptsMade: number, _type: string | undefined, error: Error | undefined): number =>
  (error as { retryInMs?: number } | undefined)?.retryInMs ?? 1000;

export const JOB_OPTIONS: Record<QueueName, JobsOptions> = {
  records: {
    attempts: 10,
    backoff: { type: "exponential", delay: 500 },
    // An activity batch's entries stay in its outbox row (`payloadInOutbox`): its job is an id.
    removeOnComplete: { age: 3600, count: 200 },
    removeOnFail: { age: 7 * 24 * 3600, count: 10_000 },
  },
  outbound: {
    attempts: 8,
    backoff: { type: "exponential", delay: 2000 },
    removeOnComplete: { age: 24 * 3600, count: 5000 },
    removeOnFail: { age: 7 * 24 * 3600, count: 10_000 },
  },
  webhooks: {
    attempts: WEBHOOK_RETRY_PAUSES_MS.length + 1,
    backoff: { type: "webhook" },
    removeOnComplete: { age: 24 * 3600, count: 5000 },
    removeOnFail: { age: 7 * 24 * 3600, count: 10_000 },
  },
};

export type Queues = { [Q in QueueName]: Queue };

/**
 * Producers' queues. The API passes its fail-fast connection: an add during an outage throws
 * at once. A queue re-emits its connection's errors; the connection's owner reports outages
 * (shared/jobs/redis-connection.ts), so here they are only kept from going unhandled.
 */
export function createQueues(connection: ConnectionOptions, prefix: string): Queues {
  const queues: Queues = {
    records: new Queue("records", { connection, prefix, defaultJobOptions: JOB_OPTIONS.records }),
    outbound: new Queue("outbound", { connection, prefix, defaultJobOptions: JOB_OPTIONS.outbound }),
    webhooks: new Queue("webhooks", { connection, prefix, defaultJobOptions: JOB_OPTIONS.webhooks }),
  };
  for (const queue of Object.values(queues)) queue.on("error", () => {});
  return queues;
}

/** Errors that mean "Redis is not reachable right now", reported once per outage elsewhere. */
export function isConnectionError(error: Error): boolean {
  const code = (error as { code?: string }).code;
  return (
    code === "ECONNREFUSED" ||
    code === "ECONNRESET" ||
    code === "ETIMEDOUT" ||
    code === "EPIPE" ||
    /Connection is closed|Stream isn't writeable|ECONNREFUSED|ECONNRESET/.test(error.message)
  );
}

/**
 * How long `closeQueues` waits for a queue's start to settle: a start under way against a Redis
 * that refuses settles within milliseconds once its connection is ended.
 */
const START_SETTLES_WITHIN_MS = 500;

/**
 * Closes each queue whose start has settled. BullMQ (5.81) drops a queue's listeners on its
 * connection at close, and a start still under way then fails with nobody listening: an unhandled
 * rejection, "Connection is closed." (taskforcesh/bullmq#3546), which ends a process that treats
 * those as fatal. So a caller closing while Redis is away ends the connection first (api/app.ts),
 * and a start that has not settled within a moment is left as it is, its queue unclosed: on a
 * shared connection `close()` only removes the listeners, which stay to hear the start's end. Some
 * starts never settle: one whose connection was ended between two of its retries (ioredis neither
 * connects nor ends it then), or one on a hung Redis until the connection's 2 s `disconnectTimeout`.
 */
export async function closeQueues(queues: Queues): Promise<void> {
  await Promise.all(
    Object.values(queues).map(async (queue) => {
      if (await within(START_SETTLES_WITHIN_MS, queue.waitUntilReady().catch(() => {}))) await queue.close();
    }),
  );
}
