import { UnrecoverableError, type Job } from "bullmq";
import type { Clock } from "../shared/clock.ts";
import type { Db } from "../shared/db/client.ts";
import { rawColumns } from "../shared/db/raw-select.ts";
import { deliveries, type DeliveryRow } from "../shared/db/schema.ts";
import { newId } from "../shared/ids.ts";
import { PermanentFailure } from "./failures.ts";

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
  /** Call right before handing the message over: a later attempt then knows to look for it. */
  sending(): void;
}

/**
 * Every outbound job runs through here. The delivery row, keyed by the job id, records the
 * outcome (sent, skipped with a reason, failed with the error) and the attempts; a job that
 * already reached an outcome does nothing when it runs again, so a retried job never sends
 * twice what it already sent.
 */
export function createDeliveries(db: Db, clock: Clock) {
  const sqlite = db.$client;
  const find = sqlite.prepare<DeliveryRow, { source: string }>(`SELECT ${rawColumns(deliveries).list} FROM deliveries WHERE source = $source`);
  const insert = sqlite.prepare(
    `INSERT INTO deliveries (id, source, org_id, onboarding_id, kind, target, status, detail, attempts, created_at, updated_at)
     VALUES ($id, $source, $orgId, $onboardingId, $kind, $target, 'sending', NULL, 0, $now, $now) ON CONFLICT(source) DO NOTHING`,
  );
  const startAttempt = sqlite.prepare("UPDATE deliveries SET attempts = attempts + 1, updated_at = $now WHERE id = $id");
  // The first hand-over's time is kept: a later attempt searches from the earliest one on.
  const sending = sqlite.prepare("UPDATE deliveries SET send_started_at = coalesce(send_started_at, $now), updated_at = $now WHERE id = $id");
  const finish = sqlite.prepare(
    "UPDATE deliveries SET status = $status, detail = $detail, target = coalesce($target, target), updated_at = $now WHERE id = $id",
  );

  return {
    async run(
      job: Job,
      meta: { orgId: string; onboardingId: string; kind: string; target: string | null },
      perform: (attempt: DeliveryAttempt) => Promise<DeliveryOutcome>,
    ): Promise<DeliveryOutcome | null> {
      const source = job.id!;
      const now = clock.nowMicros();
      insert.run({ id: newId("dlv"), source, ...meta, now });
      const row = find.get({ source })!;
      if (row.status !== "sending") return null; // an earlier run reached an outcome
      startAttempt.run({ id: row.id, now });
      try {
        const outcome = await perform({
          deliveryId: row.id,
          earlierSendAt: row.sendStartedAt,
          sending: () => void sending.run({ id: row.id, now: clock.nowMicros() }),
        });
        finish.run({ id: row.id, status: outcome.status, detail: outcome.detail, target: outcome.target ?? null, now: clock.nowMicros() });
        return outcome;
      } catch (error) {
        const permanent = error instanceof PermanentFailure;
        const lastAttempt = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
        const message = (error as Error).message;
        finish.run({ id: row.id, status: permanent || lastAttempt ? "failed" : "sending", detail: message, target: null, now: clock.nowMicros() });
        throw permanent ? new UnrecoverableError(message) : error;
      }
    },
  };
}

export type Deliveries = ReturnType<typeof createDeliveries>;
