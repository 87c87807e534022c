import { and, eq, isNull, sql } from "drizzle-orm";
import type { Db } from "../shared/db/client.ts";
import { contacts, customers, onboardings, organizations, users } from "../shared/db/schema.ts";

export interface OnboardingContext {
  displayId: number;
  customerName: string;
  waitingOnCustomer: boolean;
  waitingOnCustomerSince: number | null;
  lastChangedMode: string;
  deleted: boolean;
}

const p = sql.placeholder;

/** What the handlers read back from the API's tables, through prepared statements. */
export function createLookups(db: Db) {
  const onboarding = db
    .select({
      displayId: onboardings.displayId,
      customerName: customers.name,
      waitingOnCustomer: onboardings.waitingOnCustomer,
      waitingOnCustomerSince: onboardings.waitingOnCustomerSince,
      lastChangedMode: onboardings.lastChangedMode,
      deletedAt: onboardings.deletedAt,
      csmId: onboardings.csmId,
    })
    .from(onboardings)
    .innerJoin(customers, eq(customers.id, onboardings.customerId))
    .where(eq(onboardings.id, p("id")))
    .prepare();
  const user = db
    .select({ name: users.name, slackUserId: users.slackUserId })
    .from(users)
    .where(and(eq(users.id, p("id")), eq(users.orgId, p("orgId"))))
    .prepare();
  const primaryContact = db
    .select({ name: contacts.name, email: contacts.email })
    .from(contacts)
    .where(and(eq(contacts.customerId, p("customerId")), eq(contacts.isPrimary, true), isNull(contacts.deletedAt)))
    .prepare();
  const orgToken = db
    .select({ sealed: organizations.slackTokenEncrypted })
    .from(organizations)
    .where(eq(organizations.id, p("orgId")))
    .prepare();
  return {
    onboarding: (id: string): OnboardingContext | undefined => {
      const row = onboarding.get({ id });
      if (!row) return undefined;
      const { deletedAt, csmId: _csm, ...rest } = row;
      return { ...rest, deleted: deletedAt !== null };
    },
    /** The onboarding's CSM as it is now (a reminder goes to whoever holds it when it is sent). */
    csmOf: (id: string): string | null => onboarding.get({ id })?.csmId ?? null,
    user: (orgId: string, id: string) => user.get({ orgId, id }) ?? undefined,
    primaryContact: (customerId: string) => primaryContact.get({ customerId }) ?? undefined,
    /** The workspace's sealed Slack token, or null. */
    slackToken: (orgId: string): string | null => orgToken.get({ orgId })?.sealed ?? null,
  };
}

export type Lookups = ReturnType<typeof createLookups>;
