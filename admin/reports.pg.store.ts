import { and, asc, desc, eq } from "drizzle-orm";
import { on, type PgDb } from "../shared/db/postgres.ts";
import { customers, deliveries, onboardings, timelineEvents } from "../shared/db/schema.pg.ts";

/** The PostgreSQL twin of reports.store.ts. */
export const pgReportsStore = {
  async idByRef(db: PgDb, table: "customers" | "onboardings", orgId: string, ref: string): Promise<string | undefined> {
    const t = table === "customers" ? customers : onboardings;
    const match = /^\d+$/.test(ref) ? eq(t.displayId, Number(ref)) : eq(t.id, ref);
    return (await on(db).select({ id: t.id }).from(t).where(and(eq(t.orgId, orgId), match)))[0]?.id;
  },
  timelineOf: async (db: PgDb, customerId: string) =>
    on(db)
      .select({ kind: timelineEvents.kind, onboardingId: timelineEvents.onboardingId, data: timelineEvents.data, actor: timelineEvents.actor, at: timelineEvents.at })
      .from(timelineEvents)
      .where(eq(timelineEvents.customerId, customerId))
      .orderBy(asc(timelineEvents.at), asc(timelineEvents.id)),
  deliveriesOf: async (db: PgDb, orgId: string, onboardingId: string | null) =>
    on(db)
      .select({
        id: deliveries.id,
        kind: deliveries.kind,
        onboarding_id: deliveries.onboardingId,
        target: deliveries.target,
        status: deliveries.status,
        detail: deliveries.detail,
        attempts: deliveries.attempts,
        created_at: deliveries.createdAt,
        updated_at: deliveries.updatedAt,
      })
      .from(deliveries)
      .where(and(eq(deliveries.orgId, orgId), onboardingId === null ? undefined : eq(deliveries.onboardingId, onboardingId)))
      .orderBy(desc(deliveries.createdAt)),
};
