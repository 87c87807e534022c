import { and, eq, isNotNull, isNull, or, sql } from "drizzle-orm";
import type { Db } from "../shared/db/client.ts";
import { calendarEntries, emailDrafts, onboardings, reminderMarks } from "../shared/db/schema.ts";

const p = sql.placeholder;

export interface Waiting {
  id: string;
  orgId: string;
  customerId: string;
  csmId: string | null;
  since: number;
  frequencyDays: number;
  email: boolean;
  slack: boolean;
}

/** The `outbound` queue's own records (calendar entries, drafts) and the reminder scan's reads and marks. */
export function createOutboundStore(db: Db) {
  const calendar = db
    .insert(calendarEntries)
    .values({ source: p("source"), orgId: p("orgId"), customerId: p("customerId"), onboardingId: p("onboardingId"), kind: "launch", title: p("title"), at: p("at") })
    .onConflictDoNothing({ target: calendarEntries.source })
    .prepare();
  const draft = db
    .insert(emailDrafts)
    .values({ source: p("source"), orgId: p("orgId"), onboardingId: p("onboardingId"), toAddress: p("to"), subject: p("subject"), raw: p("raw"), createdAt: p("now") })
    .onConflictDoNothing({ target: emailDrafts.source })
    .prepare();
  const o = onboardings;
  // Served by onboardings_waiting_idx (waiting_on_customer AND deleted_at IS NULL).
  const waiting = db
    .select({
      id: o.id,
      orgId: o.orgId,
      customerId: o.customerId,
      csmId: o.csmId,
      since: sql<number>`${o.waitingOnCustomerSince}`,
      frequencyDays: o.reminderFrequencyDays,
      email: o.reminderEmail,
      slack: o.reminderSlack,
    })
    .from(o)
    .where(
      and(
        sql`${o.waitingOnCustomer} = 1`,
        isNull(o.deletedAt),
        isNotNull(o.waitingOnCustomerSince),
        eq(o.lastChangedMode, "live"),
        or(eq(o.reminderEmail, true), eq(o.reminderSlack, true)),
      ),
    )
    .prepare();
  const marked = db
    .select({ period: reminderMarks.period })
    .from(reminderMarks)
    .where(and(eq(reminderMarks.onboardingId, p("onboardingId")), eq(reminderMarks.period, p("period"))))
    .prepare();
  const mark = db
    .insert(reminderMarks)
    .values({ onboardingId: p("onboardingId"), period: p("period"), queuedAt: p("now") })
    .onConflictDoNothing()
    .returning({ period: reminderMarks.period })
    .prepare();

  return {
    calendarEntry: (e: { source: string; orgId: string; customerId: string; onboardingId: string; title: string; at: number }) => void calendar.run(e),
    emailDraft: (e: { source: string; orgId: string; onboardingId: string; to: string; subject: string; raw: string; now: number }) => void draft.run(e),
    waiting: (): Waiting[] => waiting.all(),
    periodMarked: (onboardingId: string, period: number): boolean => marked.get({ onboardingId, period }) !== undefined,
    /** Marks the period; false when another scan marked it first (and queued its reminders). */
    markPeriod: (onboardingId: string, period: number, now: number): boolean => mark.get({ onboardingId, period, now }) !== undefined,
  };
}

export type OutboundStore = ReturnType<typeof createOutboundStore>;
