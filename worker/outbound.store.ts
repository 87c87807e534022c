import type { Flow } from "../shared/db/flow.ts";
import { decoder, type Sql } from "../shared/db/sql.ts";

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
export function createOutboundStore(sql: Sql) {
  const calendar = sql.statement(
    `INSERT INTO calendar_entries (source, org_id, customer_id, onboarding_id, kind, title, at)
     VALUES ($source, $orgId, $customerId, $onboardingId, 'launch', $title, $at) ON CONFLICT (source) DO NOTHING`,
  );
  const draft = sql.statement(
    `INSERT INTO email_drafts (source, org_id, onboarding_id, to_address, subject, raw, created_at)
     VALUES ($source, $orgId, $onboardingId, $to, $subject, $raw, $now) ON CONFLICT (source) DO NOTHING`,
  );
  // Served by onboardings_waiting_idx (waiting_on_customer AND deleted_at IS NULL).
  const waiting = sql.statement<Waiting>(
    `SELECT id, org_id AS "orgId", customer_id AS "customerId", csm_id AS "csmId", waiting_on_customer_since AS since,
            reminder_frequency_days AS "frequencyDays", reminder_email AS email, reminder_slack AS slack
     FROM onboardings
     WHERE waiting_on_customer AND deleted_at IS NULL AND waiting_on_customer_since IS NOT NULL
       AND last_changed_mode = 'live' AND (reminder_email OR reminder_slack)`,
    { decode: decoder({ since: "number", email: "boolean", slack: "boolean" }) },
  );
  const marked = sql.statement(`SELECT period FROM reminder_marks WHERE onboarding_id = $onboardingId AND period = $period`);
  const mark = sql.statement(`INSERT INTO reminder_marks (onboarding_id, period, queued_at) VALUES ($onboardingId, $period, $now) ON CONFLICT DO NOTHING`);

  return {
    calendarEntry: (e: { source: string; orgId: string; customerId: string; onboardingId: string; title: string; at: number }) => calendar.run(e),
    emailDraft: (e: { source: string; orgId: string; onboardingId: string; to: string; subject: string; raw: string; now: number }) => draft.run(e),
    waiting: () => waiting.all(),
    *periodMarked(onboardingId: string, period: number): Flow<boolean> {
      return (yield* marked.get({ onboardingId, period })) !== undefined;
    },
    /** Marks the period; false when another scan marked it first (and queued its reminders). */
    *markPeriod(onboardingId: string, period: number, now: number): Flow<boolean> {
      return (yield* mark.run({ onboardingId, period, now })) === 1;
    },
  };
}
