import { and, desc, eq, getTableColumns, isNull, lt, sql, type Placeholder } from "drizzle-orm";
import { on, statement, type PgDb } from "../../shared/db/postgres.ts";
import { onboardings as o } from "../../shared/db/schema.pg.ts";
import type { OnboardingRow } from "../../shared/db/schema.ts";
import type { PageFilter } from "./onboardings.store.ts";

const IMMUTABLE = new Set<string>(["id", "orgId", "customerId", "displayId", "createdAt", "startedAt", "deletedAt"]);
const MUTABLE = Object.keys(getTableColumns(o)).filter((k) => !IMMUTABLE.has(k)) as (keyof OnboardingRow)[];
const live = (orgId: string | Placeholder) => and(eq(o.orgId, orgId), isNull(o.deletedAt));

/**
 * The PostgreSQL adapter of the onboarding store: the same methods and rows as its SQLite twin;
 * each page shape is served by the same partial indexes (drizzle/postgres/).
 */
export function createPgOnboardingStore(db: PgDb) {
  const byId = statement(db, "onboarding_by_id", (on) =>
    on
      .select()
      .from(o)
      .where(and(live(sql.placeholder("orgId")), eq(o.id, sql.placeholder("id")))),
  );
  return {
    byId: async (orgId: string, id: string): Promise<OnboardingRow | undefined> => (await byId({ orgId, id }))[0],
    byDisplayId: async (orgId: string, displayId: number): Promise<OnboardingRow | undefined> =>
      (await on(db).select().from(o).where(and(live(orgId), eq(o.displayId, displayId))))[0],
    page: async (orgId: string, customerId: string | null, filter: PageFilter, before: number, limit: number): Promise<OnboardingRow[]> =>
      on(db)
        .select()
        .from(o)
        .where(
          and(
            live(orgId),
            lt(o.createdAt, before),
            customerId === null ? undefined : eq(o.customerId, customerId),
            filter.phase === undefined ? undefined : eq(o.phase, filter.phase as OnboardingRow["phase"]),
            filter.state === undefined ? undefined : eq(o.state, filter.state as OnboardingRow["state"]),
          ),
        )
        .orderBy(desc(o.createdAt))
        .limit(limit),
    insert: async (row: Omit<OnboardingRow, "deletedAt">) => void (await on(db).insert(o).values(row)),
    update: async (row: OnboardingRow) =>
      void (await on(db)
        .update(o)
        .set(Object.fromEntries(MUTABLE.map((k) => [k, row[k]])))
        .where(eq(o.id, row.id))),
    softDelete: async (id: string, now: number) => void (await on(db).update(o).set({ deletedAt: now }).where(eq(o.id, id))),
  };
}
