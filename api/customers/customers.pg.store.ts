import { and, desc, eq, isNull, lt } from "drizzle-orm";
import { on, type PgDb } from "../../shared/db/postgres.ts";
import { contacts, customers, onboardings } from "../../shared/db/schema.pg.ts";
import type { CustomerRow } from "../../shared/db/schema.ts";
import type { StoreOf } from "../../shared/db/flow.ts";
import type { CustomerStore } from "./customers.store.ts";

const live = (orgId: string) => and(eq(customers.orgId, orgId), isNull(customers.deletedAt));

/** The PostgreSQL adapter of the customer store: the same methods and rows as its SQLite twin. */
export function createPgCustomerStore(db: PgDb): StoreOf<CustomerStore> {
  const first = <T>(rows: T[]) => rows[0];
  return {
    byId: async (orgId, id) => first(await on(db).select().from(customers).where(and(live(orgId), eq(customers.id, id)))),
    byDisplayId: async (orgId, displayId) => first(await on(db).select().from(customers).where(and(live(orgId), eq(customers.displayId, displayId)))),
    slugInUse: async (orgId, slug) => (await on(db).select({ id: customers.id }).from(customers).where(and(live(orgId), eq(customers.slug, slug)))).length > 0,
    page: async (orgId, before, limit, status) =>
      on(db)
        .select()
        .from(customers)
        .where(and(live(orgId), lt(customers.createdAt, before), status === undefined ? undefined : eq(customers.status, status as CustomerRow["status"])))
        .orderBy(desc(customers.createdAt))
        .limit(limit),
    insert: async (row) => void (await on(db).insert(customers).values(row)),
    update: async (row) =>
      void (await on(db)
        .update(customers)
        .set({ name: row.name, slug: row.slug, domain: row.domain, status: row.status, metadata: row.metadata, updatedAt: row.updatedAt })
        .where(eq(customers.id, row.id))),
    /** The customer with its contacts and onboardings; the caller holds the transaction. */
    softDeleteCascade: async (id, now) => {
      await on(db).update(customers).set({ deletedAt: now }).where(eq(customers.id, id));
      await on(db).update(contacts).set({ deletedAt: now }).where(and(eq(contacts.customerId, id), isNull(contacts.deletedAt)));
      await on(db).update(onboardings).set({ deletedAt: now }).where(and(eq(onboardings.customerId, id), isNull(onboardings.deletedAt)));
    },
  };
}
