import type { Db } from "../shared/db/client.ts";
import { col as c, rawColumns } from "../shared/db/raw-select.ts";
import { deliveries as d, type DeliveryRow, type DeliveryStatus } from "../shared/db/schema.ts";

/**
 * Delivery rows, one per outbound job (`source` = the job id). Raw prepared statements with
 * column names from the schema: every outbound job runs all of them, and drizzle's prepared
 * queries measured 20-30% slower here (bench/sqlite-stores-ab.ts).
 */
export function createDeliveryStore(db: Db) {
  const sqlite = db.$client;
  const find = sqlite.prepare<DeliveryRow, { source: string }>(`SELECT ${rawColumns(d).list} FROM "deliveries" WHERE ${c(d.source)} = $source`);
  const insert = sqlite.prepare(
    `INSERT INTO "deliveries" (${[d.id, d.source, d.orgId, d.onboardingId, d.kind, d.target, d.status, d.detail, d.attempts, d.createdAt, d.updatedAt].map(c).join(", ")})
     VALUES ($id, $source, $orgId, $onboardingId, $kind, $target, 'sending', NULL, 0, $now, $now) ON CONFLICT(${c(d.source)}) DO NOTHING`,
  );
  const startAttempt = sqlite.prepare(`UPDATE "deliveries" SET ${c(d.attempts)} = ${c(d.attempts)} + 1, ${c(d.updatedAt)} = $now WHERE ${c(d.id)} = $id`);
  // The first hand-over's time is kept: a later attempt searches from the earliest one on.
  const sending = sqlite.prepare(
    `UPDATE "deliveries" SET ${c(d.sendStartedAt)} = coalesce(${c(d.sendStartedAt)}, $now), ${c(d.updatedAt)} = $now WHERE ${c(d.id)} = $id`,
  );
  const finish = sqlite.prepare(
    `UPDATE "deliveries" SET ${c(d.status)} = $status, ${c(d.detail)} = $detail, ${c(d.target)} = coalesce($target, ${c(d.target)}), ${c(d.updatedAt)} = $now WHERE ${c(d.id)} = $id`,
  );
  const fromRow = rawColumns(d).fromRow;

  return {
    /** Inserts the job's row unless it exists, and returns it. */
    open(row: { id: string; source: string; orgId: string; onboardingId: string; kind: string; target: string | null }, now: number): DeliveryRow {
      insert.run({ ...row, now });
      return fromRow(find.get({ source: row.source }) as unknown as Record<string, unknown>);
    },
    startAttempt: (id: string, now: number) => void startAttempt.run({ id, now }),
    sending: (id: string, now: number) => void sending.run({ id, now }),
    finish: (id: string, outcome: { status: DeliveryStatus; detail: string; target: string | null }, now: number) =>
      void finish.run({ id, ...outcome, now }),
  };
}
