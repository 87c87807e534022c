import { and, eq, isNotNull, isNull, or } from "drizzle-orm";
import { on, type PgDb } from "../shared/db/postgres.ts";
import { calendarEntries, emailDrafts, onboardings as o, reminderMarks } from "../shared/db/schema.pg.ts";
import type { Waiting } from "./outbound.store.ts";

/**
 * The PostgreSQL adapter of the outbound store, with its SQLite twin's methods. Calendar
 * entries and drafts are keyed by their job; the reminder mark's primary key makes each
 * period's mark, and so its reminders, happen once across workers.
 */
export function createPgOutboundStore(db: PgDb) {
  return {
    calendarEntry: async (e: { source: string; orgId: string; customerId: string; onboardingId: string; title: string; at: number }) =>
      void (await on(db).insert(calendarEntries).values({ ...e, kind: "launch" }).onConflictDoNothing({ target: calendarEntries.source })),
    emailDraft: async (e: { source: string; orgId: string; onboardingId: string; to: string; subject: string; raw: string; now: number }) =>
      void (await on(db)
        .insert(emailDrafts)
        .values({ source: e.source, orgId: e.orgId, onboardingId: e.onboardingId, toAddress: e.to, subject: e.subject, raw: e.raw, createdAt: e.now })
        .onConflictDoNothing({ target: emailDrafts.source })),
    waiting: async (): Promise<Waiting[]> =>
      (await on(db)
        .select({
          id: o.id,
          orgId: o.orgId,
          customerId: o.customerId,
          csmId: o.csmId,
          since: o.waitingOnCustomerSince,
          frequencyDays: o.reminderFrequencyDays,
          email: o.reminderEmail,
          slack: o.reminderSlack,
        })
        .from(o)
        .where(
          and(
            eq(o.waitingOnCustomer, true),
            isNull(o.deletedAt),
            isNotNull(o.waitingOnCustomerSince),
            eq(o.lastChangedMode, "live"),
            or(eq(o.reminderEmail, true), eq(o.reminderSlack, true)),
          ),
        )) as Waiting[],
    periodMarked: async (onboardingId: string, period: number): Promise<boolean> =>
      (await on(db).select({ period: reminderMarks.period }).from(reminderMarks).where(and(eq(reminderMarks.onboardingId, onboardingId), eq(reminderMarks.period, period)))).length > 0,
    markPeriod: async (onboardingId: string, period: number, now: number): Promise<boolean> =>
      (await on(db).insert(reminderMarks).values({ onboardingId, period, queuedAt: now }).onConflictDoNothing().returning({ period: reminderMarks.period })).length === 1,
  };
}
