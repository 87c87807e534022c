import { and, desc, eq, isNull, lt, sql } from "drizzle-orm";
import { setParam, type Db } from "../../shared/db/client.ts";
import { contacts, customers, onboardings, type CustomerRow } from "../../shared/db/schema.ts";

const p = sql.placeholder;
const live = and(eq(customers.orgId, p("orgId")), isNull(customers.deletedAt));

/** Every customer query, prepared once per database. */
export function createCustomerStore(db: Db) {
  const byId = db.select().from(customers).where(and(live, eq(customers.id, p("id")))).prepare();
  const byDisplayId = db.select().from(customers).where(and(live, eq(customers.displayId, p("displayId")))).prepare();
  const slugInUse = db
    .select({ id: customers.id })
    .from(customers)
    .where(and(live, eq(customers.slug, p("slug"))))
    .prepare();
  const page = db
    .select()
    .from(customers)
    .where(and(live, lt(customers.createdAt, p("before"))))
    .orderBy(desc(customers.createdAt))
    .limit(p("limit"))
    .prepare();
  const pageByStatus = db
    .select()
    .from(customers)
    .where(and(live, eq(customers.status, p("status")), lt(customers.createdAt, p("before"))))
    .orderBy(desc(customers.createdAt))
    .limit(p("limit"))
    .prepare();
  const insert = db.insert(customers).values({
    id: p("id"),
    orgId: p("orgId"),
    displayId: p("displayId"),
    name: p("name"),
    slug: p("slug"),
    domain: p("domain"),
    status: p("status"),
    metadata: p("metadata"),
    createdAt: p("createdAt"),
    updatedAt: p("updatedAt"),
  }).prepare();
  const update = db
    .update(customers)
    .set({ name: setParam("name"), slug: setParam("slug"), domain: setParam("domain"), status: setParam("status"), metadata: setParam("metadata"), updatedAt: setParam("updatedAt") })
    .where(eq(customers.id, p("id")))
    .prepare();
  const softDelete = db.update(customers).set({ deletedAt: setParam("now") }).where(eq(customers.id, p("id"))).prepare();
  const softDeleteContacts = db
    .update(contacts)
    .set({ deletedAt: setParam("now") })
    .where(and(eq(contacts.customerId, p("id")), isNull(contacts.deletedAt)))
    .prepare();
  const softDeleteOnboardings = db
    .update(onboardings)
    .set({ deletedAt: setParam("now") })
    .where(and(eq(onboardings.customerId, p("id")), isNull(onboardings.deletedAt)))
    .prepare();

  return {
    byId: (orgId: string, id: string) => byId.get({ orgId, id }),
    byDisplayId: (orgId: string, displayId: number) => byDisplayId.get({ orgId, displayId }),
    slugInUse: (orgId: string, slug: string) => slugInUse.get({ orgId, slug }) !== undefined,
    page: (orgId: string, before: number, limit: number, status?: string) =>
      status === undefined ? page.all({ orgId, before, limit }) : pageByStatus.all({ orgId, before, limit, status }),
    insert: (row: Omit<CustomerRow, "deletedAt">) => insert.run(row),
    update: (row: CustomerRow) => update.run(row),
    /** The customer with its contacts and onboardings; the caller holds the transaction. */
    softDeleteCascade: (id: string, now: number) => {
      softDelete.run({ id, now });
      softDeleteContacts.run({ id, now });
      softDeleteOnboardings.run({ id, now });
    },
  };
}

export type CustomerStore = ReturnType<typeof createCustomerStore>;
