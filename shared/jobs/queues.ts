import { Queue, type ConnectionOptions, type JobsOptions } from "bullmq";
import type { JobName, JobPayload, QueueName } from "./catalog.ts";

/**
 * Retry policy per queue. Records are cheap database writes: retry soon and often.
 * Outbound calls reach other systems: back off exponentially (2 s, 4 s, 8 s, … ~4 min).
 * Completed jobs are kept a day so a re-pushed `outbox-<id>` is recognised and ignored.
 */
export const JOB_OPTIONS: Record<QueueName, JobsOptions> = {
  records: {
    attempts: 10,
    backoff: { type: "exponential", delay: 500 },
    removeOnComplete: { age: 24 * 3600, count: 200_000 },
    removeOnFail: { age: 7 * 24 * 3600 },
  },
  outbound: {
    attempts: 8,
    backoff: { type: "exponential", delay: 2000 },
    removeOnComplete: { age: 24 * 3600, count: 200_000 },
    removeOnFail: { age: 7 * 24 * 3600 },
  },
};

export type Queues = { [Q in QueueName]: Queue };

/** Producers' queues. The API passes its fail-fast connection: an add during an outage throws at once. */
export function createQueues(connection: ConnectionOptions, prefix: string): Queues {
  return {
    records: new Queue("records", { connection, prefix, defaultJobOptions: JOB_OPTIONS.records }),
    outbound: new Queue("outbound", { connection, prefix, defaultJobOptions: JOB_OPTIONS.outbound }),
  };
}

export interface TypedJob<Q extends QueueName, N extends JobName<Q>> {
  name: N;
  data: JobPayload<Q, N>;
  /** Deterministic, so a job pushed twice is one job. */
  jobId: string;
}

/** Adds jobs typed by the catalog: a payload that does not fit its job name does not compile. */
export async function enqueue<Q extends QueueName, N extends JobName<Q>>(queues: Queues, queue: Q, jobs: TypedJob<Q, N>[]): Promise<void> {
  if (jobs.length === 0) return;
  await queues[queue].addBulk(jobs.map((job) => ({ name: job.name, data: job.data, opts: { jobId: job.jobId } })));
}

export async function closeQueues(queues: Queues): Promise<void> {
  await Promise.all(Object.values(queues).map((q) => q.close()));
}
