import { and, desc, eq, getTableColumns, isNull, lt, sql, type SQL } from "drizzle-orm";
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
  const live = and(eq(o.orgId, p("orgId")), isNull(o.deletedAt));
  const byId = db.select().from(o).where(and(live, eq(o.id, p("id")))).prepare();
  const byDisplayId = db.select().from(o).where(and(live, eq(o.displayId, p("displayId")))).prepare();

  // One prepared page query per scope and filter combination, each served by its own index
  // (see the schema), so a page costs the same however many rows the workspace holds.
  const pageQuery = (scope: "org" | "customer", phase: boolean, state: boolean) => {
    const where: SQL[] = [live!, lt(o.createdAt, p("before"))];
    if (scope === "customer") where.push(eq(o.customerId, p("customerId")));
    if (phase) where.push(eq(o.phase, p("phase")));
    if (state) where.push(eq(o.state, p("state")));
    return db.select().from(o).where(and(...where)).orderBy(desc(o.createdAt)).limit(p("limit")).prepare();
  };
  const pages = new Map<string, ReturnType<typeof pageQuery>>();
  for (const scope of ["org", "customer"] as const) {
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
    byId: (orgId: string, id: string) => byId.get({ orgId, id }),
    byDisplayId: (orgId: string, displayId: number) => byDisplayId.get({ orgId, displayId }),
    page: (orgId: string, customerId: string | null, filter: PageFilter, before: number, limit: number): OnboardingRow[] =>
      pages
        .get(`${customerId === null ? "org" : "customer"}:${filter.phase !== undefined}:${filter.state !== undefined}`)!
        .all({ orgId, customerId, phase: filter.phase, state: filter.state, before, limit }),
    insert: (row: Omit<OnboardingRow, "deletedAt">) => insert.run(row),
    update: (row: OnboardingRow) => update.run(row),
    softDelete: (id: string, now: number) => softDelete.run({ id, now }),
  };
}

export type OnboardingStore = ReturnType<typeof createOnboardingStore>;
