import type { PgExecutor } from "../shared/db/postgres.ts";
import { reminderMarks } from "../shared/db/schema.pg.ts";

/** Reminder periods on PostgreSQL: the primary key makes each period's mark, and so its reminders, happen once across workers. */
export const pgOutboundStore = {
  markPeriod: async (tx: PgExecutor, onboardingId: string, period: number, now: number): Promise<boolean> =>
    (await tx.insert(reminderMarks).values({ onboardingId, period, queuedAt: now }).onConflictDoNothing().returning({ period: reminderMarks.period })).length === 1,
};
