import { and, asc, desc, eq } from "drizzle-orm";
import type { Db } from "../shared/db/client.ts";
import { customers, deliveries, onboardings, timelineEvents } from "../shared/db/schema.ts";

/** What the command line's reports read: timelines and deliveries of one workspace. */
export const reportsStore = {
  /** A customer's or onboarding's id from its `id` or, when made only of digits, its `display_id`. */
  idByRef(db: Db, table: "customers" | "onboardings", orgId: string, ref: string): string | undefined {
    const t = table === "customers" ? customers : onboardings;
    const match = /^\d+$/.test(ref) ? eq(t.displayId, Number(ref)) : eq(t.id, ref);
    return db.select({ id: t.id }).from(t).where(and(eq(t.orgId, orgId), match)).get()?.id;
  },
  timelineOf: (db: Db, customerId: string) =>
    db
      .select({ kind: timelineEvents.kind, onboardingId: timelineEvents.onboardingId, data: timelineEvents.data, actor: timelineEvents.actor, at: timelineEvents.at })
      .from(timelineEvents)
      .where(eq(timelineEvents.customerId, customerId))
      .orderBy(asc(timelineEvents.at), asc(timelineEvents.id))
      .all(),
  deliveriesOf: (db: Db, orgId: string, onboardingId: string | null) =>
    db
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
      .orderBy(desc(deliveries.createdAt))
      .all(),
};
