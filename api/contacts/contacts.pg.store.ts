import { and, desc, eq, isNull, lt } from "drizzle-orm";
import { on, type PgDb } from "../../shared/db/postgres.ts";
import { contacts } from "../../shared/db/schema.pg.ts";
import type { ContactRow } from "../../shared/db/schema.ts";

const live = (orgId: string, customerId: string) => and(eq(contacts.orgId, orgId), eq(contacts.customerId, customerId), isNull(contacts.deletedAt));

/** The PostgreSQL adapter of the contact store: the same methods and rows as its SQLite twin. */
export function createPgContactStore(db: PgDb) {
  return {
    byId: async (orgId: string, customerId: string, id: string): Promise<ContactRow | undefined> =>
      (await on(db).select().from(contacts).where(and(live(orgId, customerId), eq(contacts.id, id))))[0],
    byDisplayId: async (orgId: string, customerId: string, displayId: number): Promise<ContactRow | undefined> =>
      (await on(db).select().from(contacts).where(and(live(orgId, customerId), eq(contacts.displayId, displayId))))[0],
    page: async (orgId: string, customerId: string, before: number, limit: number): Promise<ContactRow[]> =>
      on(db).select().from(contacts).where(and(live(orgId, customerId), lt(contacts.createdAt, before))).orderBy(desc(contacts.createdAt)).limit(limit),
    insert: async (row: Omit<ContactRow, "deletedAt">) => void (await on(db).insert(contacts).values(row)),
    update: async (row: ContactRow) =>
      void (await on(db)
        .update(contacts)
        .set({ name: row.name, email: row.email, title: row.title, isPrimary: row.isPrimary, updatedAt: row.updatedAt })
        .where(eq(contacts.id, row.id))),
    clearPrimary: async (customerId: string, now: number) =>
      void (await on(db)
        .update(contacts)
        .set({ isPrimary: false, updatedAt: now })
        .where(and(eq(contacts.customerId, customerId), eq(contacts.isPrimary, true), isNull(contacts.deletedAt)))),
    softDelete: async (id: string, now: number) => void (await on(db).update(contacts).set({ deletedAt: now }).where(eq(contacts.id, id))),
  };
}
