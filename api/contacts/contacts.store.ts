import { contacts, type ContactRow } from "../../shared/db/schema.ts";
import { jsonList, rowOf, type Sql } from "../../shared/db/sql.ts";

/** Every contact statement; a read a change decides on locks the row (see customers.store.ts). */
export function createContactStore(sql: Sql) {
  const { columns, decode } = rowOf(contacts);
  const live = "org_id = $orgId AND customer_id = $customerId AND deleted_at IS NULL";
  const byId = sql.statement(`SELECT ${columns} FROM contacts WHERE ${live} AND id = $id`, { decode, lock: "update" });
  const byDisplayId = sql.statement(`SELECT ${columns} FROM contacts WHERE ${live} AND display_id = $displayId`, { decode, lock: "update" });
  // A GET's lookup outside a transaction is made with the other GETs of its moment, in one
  // statement (`readTogether`; PostgreSQL only).
  const byIds = sql.statement(`SELECT ${columns} FROM contacts WHERE deleted_at IS NULL AND ${sql.oneOf("id", "ids")}`, { decode });
  const byIdTogether = sql.readTogether(
    (p: { orgId: string; customerId: string; id: string }) => byId.get(p),
    (ps) => byIds.all({ ids: jsonList(ps.map((p) => p.id)) }),
    (row, p) => row.id === p.id && row.orgId === p.orgId && row.customerId === p.customerId,
  );
  const page = sql.statement(`SELECT ${columns} FROM contacts WHERE ${live} AND created_at < $before ORDER BY created_at DESC LIMIT $limit`, { decode });
  const insert = sql.statement(
    `INSERT INTO contacts (id, org_id, customer_id, display_id, name, email, title, is_primary, created_at, updated_at)
     VALUES ($id, $orgId, $customerId, $displayId, $name, $email, $title, $isPrimary, $createdAt, $updatedAt)`,
  );
  const update = sql.statement(`UPDATE contacts SET name = $name, email = $email, title = $title, is_primary = $isPrimary, updated_at = $updatedAt WHERE id = $id`);
  // RETURNING: each contact it changes gets its own contact.updated event.
  const clearPrimary = sql.statement(
    `UPDATE contacts SET is_primary = FALSE, updated_at = $now WHERE customer_id = $customerId AND is_primary AND deleted_at IS NULL RETURNING ${columns}`,
    { decode },
  );
  const softDelete = sql.statement(`UPDATE contacts SET deleted_at = $now WHERE id = $id`);

  return {
    byId: (orgId: string, customerId: string, id: string) => byIdTogether({ orgId, customerId, id }),
    byDisplayId: (orgId: string, customerId: string, displayId: number) => byDisplayId.get({ orgId, customerId, displayId }),
    page: (orgId: string, customerId: string, before: number, limit: number) => page.all({ orgId, customerId, before, limit }),
    insert: (row: Omit<ContactRow, "deletedAt">) => insert.run(row),
    update: (row: ContactRow) => update.run(row),
    /** Answers the contacts that were primary, as they are now. */
    clearPrimary: (customerId: string, now: number) => clearPrimary.all({ customerId, now }),
    softDelete: (id: string, now: number) => softDelete.run({ id, now }),
  };
}

export type ContactStore = ReturnType<typeof createContactStore>;
