import { and, desc, eq, isNull, lt, sql } from "drizzle-orm";
import { setParam, type Db } from "../../shared/db/client.ts";
import { contacts, type ContactRow } from "../../shared/db/schema.ts";

const p = sql.placeholder;
const live = and(eq(contacts.orgId, p("orgId")), eq(contacts.customerId, p("customerId")), isNull(contacts.deletedAt));

export function createContactStore(db: Db) {
  const byId = db.select().from(contacts).where(and(live, eq(contacts.id, p("id")))).prepare();
  const byDisplayId = db.select().from(contacts).where(and(live, eq(contacts.displayId, p("displayId")))).prepare();
  const page = db
    .select()
    .from(contacts)
    .where(and(live, lt(contacts.createdAt, p("before"))))
    .orderBy(desc(contacts.createdAt))
    .limit(p("limit"))
    .prepare();
  const insert = db.insert(contacts).values({
    id: p("id"),
    orgId: p("orgId"),
    customerId: p("customerId"),
    displayId: p("displayId"),
    name: p("name"),
    email: p("email"),
    title: p("title"),
    isPrimary: p("isPrimary"),
    createdAt: p("createdAt"),
    updatedAt: p("updatedAt"),
  }).prepare();
  const update = db
    .update(contacts)
    .set({ name: setParam("name"), email: setParam("email"), title: setParam("title"), isPrimary: setParam("isPrimary"), updatedAt: setParam("updatedAt") })
    .where(eq(contacts.id, p("id")))
    .prepare();
  const clearPrimary = db
    .update(contacts)
    .set({ isPrimary: false, updatedAt: setParam("now") })
    .where(and(eq(contacts.customerId, p("customerId")), eq(contacts.isPrimary, true), isNull(contacts.deletedAt)))
    .prepare();
  const softDelete = db.update(contacts).set({ deletedAt: setParam("now") }).where(eq(contacts.id, p("id"))).prepare();

  return {
    byId: (orgId: string, customerId: string, id: string) => byId.get({ orgId, customerId, id }),
    byDisplayId: (orgId: string, customerId: string, displayId: number) => byDisplayId.get({ orgId, customerId, displayId }),
    page: (orgId: string, customerId: string, before: number, limit: number) => page.all({ orgId, customerId, before, limit }),
    insert: (row: Omit<ContactRow, "deletedAt">) => insert.run(row),
    update: (row: ContactRow) => update.run(row),
    clearPrimary: (customerId: string, now: number) => clearPrimary.run({ customerId, now }),
    softDelete: (id: string, now: number) => softDelete.run({ id, now }),
  };
}

