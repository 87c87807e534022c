import { getTableColumns, type InferSelectModel, type Table } from "drizzle-orm";

/**
 * For hot reads: a column list that makes bun:sqlite return rows already shaped as the
 * table's drizzle row type (`org_id AS "orgId"` …), built from the schema so it cannot
 * drift. Only boolean columns still need converting from SQLite's 0/1. Measured on a page
 * of 20 onboardings, drizzle's generic row mapping was ~9% of the request.
 */
export function rawColumns<T extends Table>(table: T) {
  const columns = Object.entries(getTableColumns(table));
  const list = columns.map(([key, column]) => `"${column.name}" AS "${key}"`).join(", ");
  const booleans = columns.filter(([, column]) => column.columnType === "SQLiteBoolean").map(([key]) => key);
  const fromRow = (row: Record<string, unknown>): InferSelectModel<T> => {
    for (const key of booleans) row[key] = row[key] === 1;
    return row as InferSelectModel<T>;
  };
  return { list, fromRow };
}

/**
 * A column's quoted SQL name, for the raw prepared statements of hot paths: the statement text
 * is built from the schema, so renaming or dropping a column fails the type check here too.
 */
export const col = (column: { name: string }) => `"${column.name}"`;
