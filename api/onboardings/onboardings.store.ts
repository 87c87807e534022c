import { getTableColumns } from "drizzle-orm";
import { onboardings as o, type OnboardingRow } from "../../shared/db/schema.ts";
import { col, insertRows, rowOf, type Sql } from "../../shared/db/sql.ts";

const IMMUTABLE = new Set<string>(["id", "orgId", "customerId", "displayId", "createdAt", "startedAt", "deletedAt"]);

export interface PageFilter {
  phase?: string | undefined;
  state?: string | undefined;
}

/**
 * Every onboarding statement. `byId` and `byDisplayId` lock the row inside a transaction: a
 * PATCH reads, decides (did the phase change?) and writes, and two identical PATCHes at once
 * must apply once — the second reads what the first committed and finds nothing to change.
 */
export function createOnboardingStore(sql: Sql) {
  const { columns, decode } = rowOf(o);
  const live = "org_id = $orgId AND deleted_at IS NULL";
  const byId = sql.statement(`SELECT ${columns} FROM onboardings WHERE ${live} AND id = $id`, { decode, lock: "update" });
  const byDisplayId = sql.statement(`SELECT ${columns} FROM onboardings WHERE ${live} AND display_id = $displayId`, { decode, lock: "update" });

  // One statement per scope and filter combination, each served by its own index (see the
  // schema), so a page costs the same however many rows the workspace holds.
  const pages = new Map<string, ReturnType<typeof sql.statement<OnboardingRow>>>();
  for (const scope of ["workspace", "customer"] as const) {
    for (const phase of [false, true]) {
      for (const state of [false, true]) {
        const where = [live, "created_at < $before"];
        if (scope === "customer") where.push("customer_id = $customerId");
        if (phase) where.push("phase = $phase");
        if (state) where.push("state = $state");
        pages.set(`${scope}:${phase}:${state}`, sql.statement(`SELECT ${columns} FROM onboardings WHERE ${where.join(" AND ")} ORDER BY created_at DESC LIMIT $limit`, { decode }));
      }
    }
  }

  // Writes bind every column by name: a PATCH computes the whole next row in the service and
  // stores it with one statement instead of building one per changed field.
  const all = Object.entries(getTableColumns(o));
  const inserted = all.filter(([key]) => key !== "deletedAt");
  const keyOf = new Map(inserted.map(([key, c]) => [c.name, key as keyof Omit<OnboardingRow, "deletedAt">]));
  const insert = sql.statement(`INSERT INTO onboardings (${inserted.map(([, c]) => col(c)).join(", ")}) VALUES (${inserted.map(([key]) => `$${key}`).join(", ")})`);
  const insertMany = insertRows(sql, "onboardings", inserted.map(([, c]) => c.name), (row: Omit<OnboardingRow, "deletedAt">, column) => row[keyOf.get(column)!]);
  const mutable = all.filter(([key]) => !IMMUTABLE.has(key));
  const update = sql.statement(`UPDATE onboardings SET ${mutable.map(([key, c]) => `${col(c)} = $${key}`).join(", ")} WHERE id = $id`);
  const softDelete = sql.statement(`UPDATE onboardings SET deleted_at = $now WHERE id = $id`);

  return {
    byId: (orgId: string, id: string) => byId.get({ orgId, id }),
    byDisplayId: (orgId: string, displayId: number) => byDisplayId.get({ orgId, displayId }),
    page(orgId: string, customerId: string | null, filter: PageFilter, before: number, limit: number) {
      const params: Record<string, string | number> = { orgId, before, limit };
      if (customerId !== null) params.customerId = customerId;
      if (filter.phase !== undefined) params.phase = filter.phase;
      if (filter.state !== undefined) params.state = filter.state;
      return pages.get(`${customerId === null ? "workspace" : "customer"}:${filter.phase !== undefined}:${filter.state !== undefined}`)!.all(params);
    },
    // Sent without waiting (`send`): nothing reads their answer, and a change's writes travel together.
    insert: (row: Omit<OnboardingRow, "deletedAt">) => insert.send(row),
    /** A batch's new onboardings (made together: api/onboardings/onboardings.together.ts). */
    insertMany: (rows: readonly Omit<OnboardingRow, "deletedAt">[]) => insertMany.send(rows),
    update: (row: OnboardingRow) => update.send(row),
    softDelete: (id: string, now: number) => softDelete.run({ id, now }),
  };
}

export type OnboardingStore = ReturnType<typeof createOnboardingStore>;
