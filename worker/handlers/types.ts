import type { Job } from "bullmq";
import type { JobName, JobPayload, QueueName } from "../../shared/jobs/catalog.ts";

/** One handler per job of the catalog: the worker's map cannot miss or mistype one. */
export type QueueHandlers<Q extends QueueName> = {
  [N in JobName<Q>]: (payload: JobPayload<Q, N>, job: Job) => Promise<unknown>;
};
