import type { PhaseChangedRecord, TransitionRecord } from "./records.store.ts";
import { and, eq, isNull, sql } from "drizzle-orm";
import type { ActivityEntry } from "../shared/jobs/catalog.ts";
import { createPgActivityStore } from "../shared/db/activity-outbox.pg.store.ts";
import { on, type PgDb } from "../shared/db/postgres.ts";
import { contacts, customers, deliveries as d, onboardings as o, organizations, phaseTransitions, timelineEvents, users } from "../shared/db/schema.pg.ts";
import type { DeliveryRow, DeliveryStatus } from "../shared/db/schema.ts";
import type { OnboardingContext } from "./lookups.store.ts";

/**
 * The PostgreSQL adapters of the worker's stores (records, deliveries, lookups), with their
 * SQLite twins' methods. Every write is keyed by the job (`source`), so a job that runs twice,
 * on this worker or another, writes once.
 */
export function createPgRecordsStore(db: PgDb) {
  const activity = createPgActivityStore(db);
  return {
    phaseChanged: async (e: PhaseChangedRecord) =>
      void (await on(db).insert(timelineEvents).values({ ...e, kind: "phase_changed" }).onConflictDoNothing({ target: timelineEvents.source })),
    transition: async (e: TransitionRecord) => {
      const { from, to, ...rest } = e;
      await on(db).insert(phaseTransitions).values({ ...rest, fromPhase: from, toPhase: to }).onConflictDoNothing({ target: phaseTransitions.source });
    },
    activityBatch: (entries: readonly ActivityEntry[]) => activity.insertMany(entries),
  };
}

export function createPgDeliveryStore(db: PgDb) {
  return {
    async open(row: { id: string; source: string; orgId: string; onboardingId: string; kind: string; target: string | null }, now: number): Promise<DeliveryRow> {
      await on(db)
        .insert(d)
        .values({ ...row, status: "sending", detail: null, attempts: 0, createdAt: now, updatedAt: now })
        .onConflictDoNothing({ target: d.source });
      return (await on(db).select().from(d).where(eq(d.source, row.source)))[0]!;
    },
    startAttempt: async (id: string, now: number) => void (await on(db).update(d).set({ attempts: sql`${d.attempts} + 1`, updatedAt: now }).where(eq(d.id, id))),
    sending: async (id: string, now: number) =>
      void (await on(db).update(d).set({ sendStartedAt: sql`coalesce(${d.sendStartedAt}, ${now})`, updatedAt: now }).where(eq(d.id, id))),
    finish: async (id: string, outcome: { status: DeliveryStatus; detail: string; target: string | null }, now: number) =>
      void (await on(db)
        .update(d)
        .set({ status: outcome.status, detail: outcome.detail, target: sql`coalesce(${outcome.target}, ${d.target})`, updatedAt: now })
        .where(eq(d.id, id))),
  };
}

export function createPgLookups(db: PgDb) {
  return {
    onboarding: async (id: string): Promise<OnboardingContext | undefined> => {
      const [row] = await on(db)
        .select({
          displayId: o.displayId,
          customerName: customers.name,
          waitingOnCustomer: o.waitingOnCustomer,
          waitingOnCustomerSince: o.waitingOnCustomerSince,
          lastChangedMode: o.lastChangedMode,
          deletedAt: o.deletedAt,
        })
        .from(o)
        .innerJoin(customers, eq(customers.id, o.customerId))
        .where(eq(o.id, id));
      if (!row) return undefined;
      const { deletedAt, ...rest } = row;
      return { ...rest, deleted: deletedAt !== null };
    },
    csmOf: async (id: string): Promise<string | null> => (await on(db).select({ csmId: o.csmId }).from(o).where(eq(o.id, id)))[0]?.csmId ?? null,
    user: async (orgId: string, id: string) =>
      (await on(db).select({ name: users.name, slackUserId: users.slackUserId }).from(users).where(and(eq(users.id, id), eq(users.orgId, orgId))))[0],
    primaryContact: async (customerId: string) =>
      (
        await on(db)
          .select({ name: contacts.name, email: contacts.email })
          .from(contacts)
          .where(and(eq(contacts.customerId, customerId), eq(contacts.isPrimary, true), isNull(contacts.deletedAt)))
      )[0],
    slackToken: async (orgId: string): Promise<string | null> =>
      (await on(db).select({ sealed: organizations.slackTokenEncrypted }).from(organizations).where(eq(organizations.id, orgId)))[0]?.sealed ?? null,
  };
}
