import type { Db } from "../shared/db/client.ts";

export interface OnboardingContext {
  displayId: number;
  customerName: string;
  waitingOnCustomer: boolean;
  waitingOnCustomerSince: number | null;
  lastChangedMode: string;
  deleted: boolean;
}

/** What the handlers read back from the API's tables, through prepared statements. */
export function createLookups(db: Db) {
  const sqlite = db.$client;
  const onboarding = sqlite.prepare<OnboardingContext, { id: string }>(
    `SELECT o.display_id AS displayId, c.name AS customerName, o.waiting_on_customer AS waitingOnCustomer,
            o.waiting_on_customer_since AS waitingOnCustomerSince, o.last_changed_mode AS lastChangedMode,
            o.deleted_at IS NOT NULL AS deleted
     FROM onboardings o JOIN customers c ON c.id = o.customer_id WHERE o.id = $id`,
  );
  const user = sqlite.prepare<{ name: string; slackUserId: string | null }, { orgId: string; id: string }>(
    "SELECT name, slack_user_id AS slackUserId FROM users WHERE id = $id AND org_id = $orgId",
  );
  const primaryContact = sqlite.prepare<{ name: string; email: string | null }, { customerId: string }>(
    "SELECT name, email FROM contacts WHERE customer_id = $customerId AND is_primary = 1 AND deleted_at IS NULL",
  );
  return {
    onboarding: (id: string) => {
      const row = onboarding.get({ id });
      return row ? { ...row, waitingOnCustomer: Boolean(row.waitingOnCustomer), deleted: Boolean(row.deleted) } : undefined;
    },
    user: (orgId: string, id: string) => user.get({ orgId, id }) ?? undefined,
    primaryContact: (customerId: string) => primaryContact.get({ customerId }) ?? undefined,
  };
}

export type Lookups = ReturnType<typeof createLookups>;
