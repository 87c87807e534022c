import type { Flow } from "../../shared/db/flow.ts";
import { contacts, customers, onboardings, type ContactRow, type CustomerRow, type OnboardingRow } from "../../shared/db/schema.ts";
import { jsonList, rowOf, type Lock, type Params, type Sql } from "../../shared/db/sql.ts";
import { slugTaken } from "./customers.errors.ts";

/**
 * Every customer statement. The reads a change decides on lock the row for the rest of its
 * transaction (`lock: "update"`), so two changes of one customer at once apply one after the
 * other, each deciding on what the other committed. A create that only refers to the customer
 * (a new onboarding) reads it with a shared lock (`lock: "share"`): creates under one customer
 * run side by side, and a change or deletion of the customer waits for them all.
 */
/** How a transaction's read of a customer holds it: for a change of it, or for a new record under it. */
export type CustomerLock = Extract<Lock, "update" | "share">;

export function createCustomerStore(sql: Sql) {
  // The service checks a slug is free before it writes it; two requests that both found it
  // free are told apart by the index, and the second answers as if it had seen the first.
  const unique = { index: "customers_slug_live_uq", table: "customers", columns: ["org_id", "slug"], error: (p: Params) => slugTaken(String(p.slug)) };
  const { columns, decode } = rowOf(customers);
  const live = "org_id = $orgId AND deleted_at IS NULL";
  // Each lookup under both locks: `update` for a change of the customer, `share` for a new record under it.
  const lookups = (lock: CustomerLock) => ({
    byId: sql.statement(`SELECT ${columns} FROM customers WHERE ${live} AND id = $id`, { decode, lock }),
    byDisplayId: sql.statement(`SELECT ${columns} FROM customers WHERE ${live} AND display_id = $displayId`, { decode, lock }),
  });
  const locked = { update: lookups("update"), share: lookups("share") };
  // A GET's lookup outside a transaction (where no lock applies) is made with the other GETs of
  // its moment, in one statement (`readTogether`; PostgreSQL only).
  const byIds = sql.statement(`SELECT ${columns} FROM customers WHERE deleted_at IS NULL AND ${sql.oneOf("id", "ids")}`, { decode });
  const byId = sql.readTogether(
    (p: { orgId: string; id: string; lock: CustomerLock }) => locked[p.lock].byId.get(p),
    (ps) => byIds.all({ ids: jsonList(ps.map((p) => p.id)) }),
    (row, p) => row.id === p.id && row.orgId === p.orgId,
  );
  // The customers a batch of new records refers to, by id, under the shared lock (`share`).
  const referred = sql.statement<{ id: string; orgId: string }>(
    `SELECT id, org_id AS "orgId" FROM customers WHERE deleted_at IS NULL AND ${sql.oneOf("id", "refs")}`,
    { lock: "share" },
  );
  const slugInUse = sql.statement(`SELECT id FROM customers WHERE ${live} AND slug = $slug`);
  const page = sql.statement(`SELECT ${columns} FROM customers WHERE ${live} AND created_at < $before ORDER BY created_at DESC LIMIT $limit`, { decode });
  const pageByStatus = sql.statement(
    `SELECT ${columns} FROM customers WHERE ${live} AND status = $status AND created_at < $before ORDER BY created_at DESC LIMIT $limit`,
    { decode },
  );
  const insert = sql.statement(
    `INSERT INTO customers (id, org_id, display_id, name, slug, domain, status, metadata, created_at, updated_at)
     VALUES ($id, $orgId, $displayId, $name, $slug, $domain, $status, $metadata, $createdAt, $updatedAt)`,
    { unique },
  );
  const update = sql.statement(
    `UPDATE customers SET name = $name, slug = $slug, domain = $domain, status = $status, metadata = $metadata, updated_at = $updatedAt WHERE id = $id`,
    { unique },
  );
  const softDelete = sql.statement(`UPDATE customers SET deleted_at = $now WHERE id = $id`);
  // RETURNING: every record a cascade deletes gets its own deleted event.
  const contactRows = rowOf(contacts);
  const onboardingRows = rowOf(onboardings);
  const softDeleteContacts = sql.statement(`UPDATE contacts SET deleted_at = $now WHERE customer_id = $id AND deleted_at IS NULL RETURNING ${contactRows.columns}`, {
    decode: contactRows.decode,
  });
  const softDeleteOnboardings = sql.statement(
    `UPDATE onboardings SET deleted_at = $now WHERE customer_id = $id AND deleted_at IS NULL RETURNING ${onboardingRows.columns}`,
    { decode: onboardingRows.decode },
  );

  return {
    /** In a transaction, locked to its end: `share` keeps it from changing or going but lets other `share` readers (creates under it) go on. */
    byId: (orgId: string, id: string, lock: CustomerLock = "update") => byId({ orgId, id, lock }),
    byDisplayId: (orgId: string, displayId: number, lock: CustomerLock = "update") => locked[lock].byDisplayId.get({ orgId, displayId }),
    /** Live customers of any workspace among `ids`, locked `share` in a transaction: the caller checks each one's workspace. */
    referredTo: (ids: readonly string[]) => referred.all({ refs: jsonList(ids) }),
    *slugInUse(orgId: string, slug: string): Flow<boolean> {
      return (yield* slugInUse.get({ orgId, slug })) !== undefined;
    },
    page: (orgId: string, before: number, limit: number, status?: string) =>
      status === undefined ? page.all({ orgId, before, limit }) : pageByStatus.all({ orgId, before, limit, status }),
    insert: (row: Omit<CustomerRow, "deletedAt">) => insert.run(row),
    update: (row: CustomerRow) => update.run(row),
    /** The customer with its contacts and onboardings; the caller holds the transaction. Answers the records deleted with it. */
    *softDeleteCascade(id: string, now: number): Flow<{ contacts: ContactRow[]; onboardings: OnboardingRow[] }> {
      yield* softDelete.run({ id, now });
      const contacts = yield* softDeleteContacts.all({ id, now });
      const onboardings = yield* softDeleteOnboardings.all({ id, now });
      return { contacts, onboardings };
    },
  };
}

export type CustomerStore = ReturnType<typeof createCustomerStore>;
