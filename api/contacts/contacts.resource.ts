import { formatMicros } from "../../shared/clock.ts";
import type { ContactRow } from "../../shared/db/schema.ts";
import type { ContactResource } from "./contacts.schema.ts";

/** The row as the API returns it (and as events carry it). */
export function toContactResource(row: ContactRow): ContactResource {
  return {
    object: "contact",
    id: row.id,
    display_id: row.displayId,
    customer_id: row.customerId,
    name: row.name,
    email: row.email,
    title: row.title,
    is_primary: row.isPrimary,
    created_at: formatMicros(row.createdAt),
    updated_at: formatMicros(row.updatedAt),
  };
}
