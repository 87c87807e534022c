import type { Flow } from "../shared/db/flow.ts";
import { decoder, type Sql } from "../shared/db/sql.ts";

export interface OnboardingContext {
  displayId: number;
  customerName: string;
  waitingOnCustomer: boolean;
  waitingOnCustomerSince: number | null;
  lastChangedMode: string;
  deleted: boolean;
}

/** What the handlers read back from the API's tables (every outbound job runs them). */
export function createLookups(sql: Sql) {
  const onboarding = sql.statement<OnboardingContext>(
    `SELECT o.display_id AS "displayId", c.name AS "customerName", o.waiting_on_customer AS "waitingOnCustomer",
            o.waiting_on_customer_since AS "waitingOnCustomerSince", o.last_changed_mode AS "lastChangedMode",
            o.deleted_at IS NOT NULL AS deleted
     FROM onboardings o JOIN customers c ON c.id = o.customer_id WHERE o.id = $id`,
    { decode: decoder({ waitingOnCustomer: "boolean", waitingOnCustomerSince: "number", deleted: "boolean" }) },
  );
  const user = sql.statement<{ name: string; slackUserId: string | null }>(`SELECT name, slack_user_id AS "slackUserId" FROM users WHERE id = $id AND org_id = $orgId`);
  const primaryContact = sql.statement<{ name: string; email: string | null }>(
    `SELECT name, email FROM contacts WHERE customer_id = $customerId AND is_primary AND deleted_at IS NULL`,
  );
  const csm = sql.statement<{ csmId: string | null }>(`SELECT csm_id AS "csmId" FROM onboardings WHERE id = $id`);
  const orgToken = sql.statement<{ sealed: string | null }>(`SELECT slack_token_encrypted AS sealed FROM organizations WHERE id = $orgId`);
  return {
    onboarding: (id: string) => onboarding.get({ id }),
    /** The onboarding's CSM as it is now (a reminder goes to whoever holds it when it is sent). */
    *csmOf(id: string): Flow<string | null> {
      return (yield* csm.get({ id }))?.csmId ?? null;
    },
    user: (orgId: string, id: string) => user.get({ orgId, id }),
    primaryContact: (customerId: string) => primaryContact.get({ customerId }),
    /** The workspace's sealed Slack token, or null. */
    *slackToken(orgId: string): Flow<string | null> {
      return (yield* orgToken.get({ orgId }))?.sealed ?? null;
    },
  };
}
