import type { Flow } from "../shared/db/flow.ts";
import { decoder, type Sql } from "../shared/db/sql.ts";

/** What the command line's reports read: timelines and deliveries of one workspace. */
export function createReportsStore(sql: Sql) {
  const idOf = (table: "customers" | "onboardings", column: "id" | "display_id") => sql.statement<{ id: string }>(`SELECT id FROM ${table} WHERE org_id = $orgId AND ${column} = $ref`);
  const byRef = {
    customers: { id: idOf("customers", "id"), displayId: idOf("customers", "display_id") },
    onboardings: { id: idOf("onboardings", "id"), displayId: idOf("onboardings", "display_id") },
  };
  const timelineOf = sql.statement<{ kind: string; onboardingId: string | null; data: string; actor: string; at: number }>(
    `SELECT kind, onboarding_id AS "onboardingId", data, actor, at FROM timeline_events WHERE customer_id = $customerId ORDER BY at, id`,
    { decode: decoder({ at: "number" }) },
  );
  const deliveriesOf = sql.statement<{
    id: string; kind: string; onboarding_id: string; target: string | null; status: string; detail: string | null; attempts: number; created_at: number; updated_at: number;
  }>(
    `SELECT id, kind, onboarding_id, target, status, detail, attempts, created_at, updated_at FROM deliveries
     WHERE org_id = $orgId AND (CAST($onboardingId AS TEXT) IS NULL OR onboarding_id = $onboardingId) ORDER BY created_at DESC`,
    { decode: decoder({ created_at: "number", updated_at: "number" }) },
  );
  const activityOf = sql.statement<{
    request_id: string; actor: string; method: string; route: string; status: number; repeat_count: number; address: string | null; duration_ms: number; at: number;
  }>(
    `SELECT request_id, actor, method, route, status, repeat_count, address, duration_ms, at FROM activity_entries
     WHERE org_id = $orgId ORDER BY at DESC LIMIT $limit`,
    { decode: decoder({ at: "number" }) },
  );
  return {
    /** A workspace's newest activity entries. */
    activityOf: (orgId: string, limit: number) => activityOf.all({ orgId, limit }),
    /** A customer's or onboarding's id from its `id` or, when made only of digits, its `display_id`. */
    *idByRef(table: "customers" | "onboardings", orgId: string, ref: string): Flow<string | undefined> {
      const row = /^\d{1,15}$/.test(ref) ? yield* byRef[table].displayId.get({ orgId, ref: Number(ref) }) : yield* byRef[table].id.get({ orgId, ref });
      return row?.id;
    },
    timelineOf: (customerId: string) => timelineOf.all({ customerId }),
    deliveriesOf: (orgId: string, onboardingId: string | null) => deliveriesOf.all({ orgId, onboardingId }),
  };
}
