import { eq, getTableColumns, sql } from "drizzle-orm";
import { rawColumns } from "../../shared/db/raw-select.ts";
import { setParam, type Db } from "../../shared/db/client.ts";
import { onboardings, type OnboardingRow } from "../../shared/db/schema.ts";

const p = sql.placeholder;
const o = onboardings;
const IMMUTABLE = new Set<string>(["id", "orgId", "customerId", "displayId", "createdAt", "startedAt", "deletedAt"]);

export interface PageFilter {
  phase?: string | undefined;
  state?: string | undefined;
}

export function createOnboardingStore(db: Db) {
  // Reads go straight through bun:sqlite (see shared/db/raw-select.ts); writes through drizzle.
  const { list: selectList, fromRow } = rawColumns(o);
  const live = "org_id = $orgId AND deleted_at IS NULL";
  const byId = db.$client.prepare<Record<string, unknown>, { orgId: string; id: string }>(`SELECT ${selectList} FROM onboardings WHERE ${live} AND id = $id`);
  const byDisplayId = db.$client.prepare<Record<string, unknown>, { orgId: string; displayId: number }>(
    `SELECT ${selectList} FROM onboardings WHERE ${live} AND display_id = $displayId`,
  );

  // One prepared page query per scope and filter combination, each served by its own index
  // (see the schema), so a page costs the same however many rows the workspace holds.
  const pageQuery = (scope: "workspace" | "customer", phase: boolean, state: boolean) => {
    const where = [live, "created_at < $before"];
    if (scope === "customer") where.push("customer_id = $customerId");
    if (phase) where.push("phase = $phase");
    if (state) where.push("state = $state");
    return db.$client.prepare<Record<string, unknown>, Record<string, string | number>>(
      `SELECT ${selectList} FROM onboardings WHERE ${where.join(" AND ")} ORDER BY created_at DESC LIMIT $limit`,
    );
  };
  const pages = new Map<string, ReturnType<typeof pageQuery>>();
  for (const scope of ["workspace", "customer"] as const) {
    for (const phase of [false, true]) {
      for (const state of [false, true]) pages.set(`${scope}:${phase}:${state}`, pageQuery(scope, phase, state));
    }
  }

  // Writes bind every column by name: a PATCH computes the whole next row in the service and
  // stores it with one prepared statement instead of building a query per changed field.
  const columns = Object.keys(getTableColumns(o)) as (keyof OnboardingRow)[];
  const params = (keys: readonly string[], param: (name: string) => unknown) =>
    Object.fromEntries(keys.map((k) => [k, param(k)])) as never;
  const insert = db.insert(o).values(params(columns.filter((k) => k !== "deletedAt"), p)).prepare();
  const update = db
    .update(o)
    .set(params(columns.filter((k) => !IMMUTABLE.has(k)), setParam))
    .where(eq(o.id, p("id")))
    .prepare();
  const softDelete = db.update(o).set({ deletedAt: setParam("now") }).where(eq(o.id, p("id"))).prepare();

  return {
    byId: (orgId: string, id: string): OnboardingRow | undefined => {
      const row = byId.get({ orgId, id });
      return row ? fromRow(row) : undefined;
    },
    byDisplayId: (orgId: string, displayId: number): OnboardingRow | undefined => {
      const row = byDisplayId.get({ orgId, displayId });
      return row ? fromRow(row) : undefined;
    },
    page(orgId: string, customerId: string | null, filter: PageFilter, before: number, limit: number): OnboardingRow[] {
      const params: Record<string, string | number> = { orgId, before, limit };
      if (customerId !== null) params.customerId = customerId;
      if (filter.phase !== undefined) params.phase = filter.phase;
      if (filter.state !== undefined) params.state = filter.state;
      const query = pages.get(`${customerId === null ? "workspace" : "customer"}:${filter.phase !== undefined}:${filter.state !== undefined}`)!;
      return query.all(params).map(fromRow);
    },
    insert: (row: Omit<OnboardingRow, "deletedAt">) => insert.run(row),
    update: (row: OnboardingRow) => update.run(row),
    softDelete: (id: string, now: number) => softDelete.run({ id, now }),
  };
}

