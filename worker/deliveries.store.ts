import type { Flow } from "../shared/db/flow.ts";
import { deliveries, type DeliveryStatus } from "../shared/db/schema.ts";
import { rowOf, type Sql } from "../shared/db/sql.ts";

/** Delivery rows, one per outbound job (`source` = the job id); every outbound job runs all of them. */
export function createDeliveryStore(sql: Sql) {
  const { columns, decode } = rowOf(deliveries);
  const find = sql.statement(`SELECT ${columns} FROM deliveries WHERE source = $source`, { decode });
  const insert = sql.statement(
    `INSERT INTO deliveries (id, source, org_id, onboarding_id, kind, target, status, detail, attempts, created_at, updated_at)
     VALUES ($id, $source, $orgId, $onboardingId, $kind, $target, 'sending', NULL, 0, $now, $now) ON CONFLICT (source) DO NOTHING`,
  );
  const startAttempt = sql.statement(`UPDATE deliveries SET attempts = attempts + 1, updated_at = $now WHERE id = $id`);
  // The first hand-over's time is kept: a later attempt searches from the earliest one on.
  const sending = sql.statement(`UPDATE deliveries SET send_started_at = coalesce(send_started_at, $now), updated_at = $now WHERE id = $id`);
  const finish = sql.statement(`UPDATE deliveries SET status = $status, detail = $detail, target = coalesce($target, target), updated_at = $now WHERE id = $id`);

  return {
    /** Inserts the job's row unless it exists, and returns it. */
    *open(row: { id: string; source: string; orgId: string; onboardingId: string; kind: string; target: string | null }, now: number) {
      yield* insert.run({ ...row, now });
      return (yield* find.get({ source: row.source }))!;
    },
    startAttempt: (id: string, now: number) => startAttempt.run({ id, now }),
    sending: (id: string, now: number) => sending.run({ id, now }),
    finish: (id: string, outcome: { status: DeliveryStatus; detail: string; target: string | null }, now: number) => finish.run({ id, ...outcome, now }),
  };
}
