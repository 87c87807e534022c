import { and, eq, isNotNull, isNull, or, sql } from "drizzle-orm";
import type { Db } from "../shared/db/client.ts";
import { col as c } from "../shared/db/raw-select.ts";
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
  const sqlite = db.$client;
  const ce = calendarEntries;
  const calendar = sqlite.prepare(
    `INSERT INTO "calendar_entries" (${[ce.source, ce.orgId, ce.customerId, ce.onboardingId, ce.kind, ce.title, ce.at].map(c).join(", ")})
     VALUES ($source, $orgId, $customerId, $onboardingId, 'launch', $title, $at) ON CONFLICT(${c(ce.source)}) DO NOTHING`,
  );
  const ed = emailDrafts;
  const draft = sqlite.prepare(
    `INSERT INTO "email_drafts" (${[ed.source, ed.orgId, ed.onboardingId, ed.toAddress, ed.subject, ed.raw, ed.createdAt].map(c).join(", ")})
     VALUES ($source, $orgId, $onboardingId, $to, $subject, $raw, $now) ON CONFLICT(${c(ed.source)}) DO NOTHING`,
  );
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
  const rm = reminderMarks;
  const mark = sqlite.prepare(
    `INSERT INTO "reminder_marks" (${c(rm.onboardingId)}, ${c(rm.period)}, ${c(rm.queuedAt)}) VALUES ($onboardingId, $period, $now) ON CONFLICT DO NOTHING`,
  );

  return {
    calendarEntry: (e: { source: string; orgId: string; customerId: string; onboardingId: string; title: string; at: number }) => void calendar.run(e),
    emailDraft: (e: { source: string; orgId: string; onboardingId: string; to: string; subject: string; raw: string; now: number }) => void draft.run(e),
    waiting: (): Waiting[] => waiting.all(),
    periodMarked: (onboardingId: string, period: number): boolean => marked.get({ onboardingId, period }) !== undefined,
    /** Marks the period; false when another scan marked it first (and queued its reminders). */
    markPeriod: (onboardingId: string, period: number, now: number): boolean => mark.run({ onboardingId, period, now }).changes === 1,
  };
}

