import { run } from "../shared/db/flow.ts";
import { UnrecoverableError, type Job } from "bullmq";
import type { Clock } from "../shared/clock.ts";
import { newId } from "../shared/ids.ts";
import { PermanentFailure } from "./failures.ts";
import type { WorkerStores } from "./stores.ts";

export interface DeliveryOutcome {
  /** `uncertain`: an earlier attempt may have sent, nobody can tell, and nothing was sent again. */
  status: "sent" | "skipped" | "uncertain";
  detail: string;
  target?: string | null;
}

export interface DeliveryAttempt {
  deliveryId: string;
  /**
   * When an earlier attempt handed the message over (microseconds), or null when none got
   * that far: then nothing can have been sent, and there is nothing to look for.
   */
  earlierSendAt: number | null;
  /**
   * Call, and wait for, right before handing the message over: a later attempt then knows to
   * look for it. Nothing is handed over unless the mark is written.
   */
  sending(): Promise<void>;
}

/**
 * Every outbound job runs through here. The delivery row, keyed by the job id, records the
 * outcome (sent, skipped with a reason, failed with the error) and the attempts; a job that
 * already reached an outcome does nothing when it runs again, so a retried job never sends
 * twice what it already sent.
 *
 * A database that fails under a job (SQLite busy beyond its timeout, PostgreSQL unreachable)
 * fails the attempt like any transient error: BullMQ retries it, and the row, keyed by the
 * job, picks up where it was.
 */
export function createDeliveries(store: WorkerStores["deliveries"], clock: Clock) {

  return {
    async run(
      job: Job,
      meta: { orgId: string; onboardingId: string; kind: string; target: string | null },
      perform: (attempt: DeliveryAttempt) => Promise<DeliveryOutcome>,
    ): Promise<DeliveryOutcome | null> {
      const source = job.id!;
      const now = clock.nowMicros();
      const row = await run(store.open({ id: newId("dlv"), source, ...meta }, now));
      if (row.status !== "sending") return null; // an earlier run reached an outcome
      await run(store.startAttempt(row.id, now));
      try {
        const outcome = await perform({
          deliveryId: row.id,
          earlierSendAt: row.sendStartedAt,
          sending: async () => void (await run(store.sending(row.id, clock.nowMicros()))),
        });
        await run(store.finish(row.id, { status: outcome.status, detail: outcome.detail, target: outcome.target ?? null }, clock.nowMicros()));
        return outcome;
      } catch (error) {
        const permanent = error instanceof PermanentFailure;
        const lastAttempt = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
        const message = (error as Error).message;
        await run(store.finish(row.id, { status: permanent || lastAttempt ? "failed" : "sending", detail: message, target: null }, clock.nowMicros()));
        throw permanent ? new UnrecoverableError(message) : error;
      }
    },
  };
}

export type Deliveries = ReturnType<typeof createDeliveries>;
