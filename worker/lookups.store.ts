import type { Db } from "../shared/db/client.ts";
import { col as c } from "../shared/db/raw-select.ts";
import { contacts as ct, customers as cu, onboardings as o, organizations as org, users as u } from "../shared/db/schema.ts";

export interface OnboardingContext {
  displayId: number;
  customerName: string;
  waitingOnCustomer: boolean;
  waitingOnCustomerSince: number | null;
  lastChangedMode: string;
  deleted: boolean;
}

type RawContext = Omit<OnboardingContext, "waitingOnCustomer" | "deleted"> & { waitingOnCustomer: number; deleted: number; csmId: string | null };

/**
 * What the handlers read back from the API's tables. Raw prepared statements (every outbound
 * job runs them) with column names from the schema.
 */
export function createLookups(db: Db) {
  const sqlite = db.$client;
  const onboarding = sqlite.prepare<RawContext, { id: string }>(
    `SELECT o.${c(o.displayId)} AS displayId, c.${c(cu.name)} AS customerName, o.${c(o.waitingOnCustomer)} AS waitingOnCustomer,
            o.${c(o.waitingOnCustomerSince)} AS waitingOnCustomerSince, o.${c(o.lastChangedMode)} AS lastChangedMode,
            o.${c(o.deletedAt)} IS NOT NULL AS deleted, o.${c(o.csmId)} AS csmId
     FROM "onboardings" o JOIN "customers" c ON c.${c(cu.id)} = o.${c(o.customerId)} WHERE o.${c(o.id)} = $id`,
  );
  const user = sqlite.prepare<{ name: string; slackUserId: string | null }, { orgId: string; id: string }>(
    `SELECT ${c(u.name)} AS name, ${c(u.slackUserId)} AS slackUserId FROM "users" WHERE ${c(u.id)} = $id AND ${c(u.orgId)} = $orgId`,
  );
  const primaryContact = sqlite.prepare<{ name: string; email: string | null }, { customerId: string }>(
    `SELECT ${c(ct.name)} AS name, ${c(ct.email)} AS email FROM "contacts"
     WHERE ${c(ct.customerId)} = $customerId AND ${c(ct.isPrimary)} = 1 AND ${c(ct.deletedAt)} IS NULL`,
  );
  const csm = sqlite.prepare<{ csmId: string | null }, { id: string }>(`SELECT ${c(o.csmId)} AS csmId FROM "onboardings" WHERE ${c(o.id)} = $id`);
  const orgToken = sqlite.prepare<{ sealed: string | null }, { orgId: string }>(
    `SELECT ${c(org.slackTokenEncrypted)} AS sealed FROM "organizations" WHERE ${c(org.id)} = $orgId`,
  );
  return {
    onboarding: (id: string): OnboardingContext | undefined => {
      const row = onboarding.get({ id });
      if (!row) return undefined;
      const { csmId: _csm, ...rest } = row;
      return { ...rest, waitingOnCustomer: Boolean(row.waitingOnCustomer), deleted: Boolean(row.deleted) };
    },
    /** The onboarding's CSM as it is now (a reminder goes to whoever holds it when it is sent). */
    csmOf: (id: string): string | null => csm.get({ id })?.csmId ?? null,
    user: (orgId: string, id: string) => user.get({ orgId, id }) ?? undefined,
    primaryContact: (customerId: string) => primaryContact.get({ customerId }) ?? undefined,
    /** The workspace's sealed Slack token, or null. */
    slackToken: (orgId: string): string | null => orgToken.get({ orgId })?.sealed ?? null,
  };
}

