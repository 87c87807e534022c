import { eq, sql } from "drizzle-orm";
import { setParam, type Db } from "../shared/db/client.ts";
import { deliveries, type DeliveryRow, type DeliveryStatus } from "../shared/db/schema.ts";

const p = sql.placeholder;

/** Delivery rows, one per outbound job (`source` = the job id). */
export function createDeliveryStore(db: Db) {
  const find = db.select().from(deliveries).where(eq(deliveries.source, p("source"))).prepare();
  const insert = db
    .insert(deliveries)
    .values({
      id: p("id"),
      source: p("source"),
      orgId: p("orgId"),
      onboardingId: p("onboardingId"),
      kind: p("kind"),
      target: p("target"),
      status: "sending",
      detail: null,
      attempts: 0,
      createdAt: p("now"),
      updatedAt: p("now"),
    })
    .onConflictDoNothing({ target: deliveries.source })
    .prepare();
  const startAttempt = db
    .update(deliveries)
    .set({ attempts: sql`${deliveries.attempts} + 1`, updatedAt: setParam("now") })
    .where(eq(deliveries.id, p("id")))
    .prepare();
  // The first hand-over's time is kept: a later attempt searches from the earliest one on.
  const sending = db
    .update(deliveries)
    .set({ sendStartedAt: sql`coalesce(${deliveries.sendStartedAt}, ${p("now")})`, updatedAt: setParam("now") })
    .where(eq(deliveries.id, p("id")))
    .prepare();
  const finish = db
    .update(deliveries)
    .set({ status: setParam("status"), detail: setParam("detail"), target: sql`coalesce(${p("target")}, ${deliveries.target})`, updatedAt: setParam("now") })
    .where(eq(deliveries.id, p("id")))
    .prepare();

  return {
    /** Inserts the job's row unless it exists, and returns it. */
    open(row: { id: string; source: string; orgId: string; onboardingId: string; kind: string; target: string | null }, now: number): DeliveryRow {
      insert.run({ ...row, now });
      return find.get({ source: row.source })!;
    },
    startAttempt: (id: string, now: number) => void startAttempt.run({ id, now }),
    sending: (id: string, now: number) => void sending.run({ id, now }),
    finish: (id: string, outcome: { status: DeliveryStatus; detail: string; target: string | null }, now: number) =>
      void finish.run({ id, ...outcome, now }),
  };
}
