import type { Flow } from "../shared/db/flow.ts";
import { decoder, type Sql } from "../shared/db/sql.ts";
import { createActivityStore } from "../shared/db/activity.store.ts";

/** One entry of a customer's timeline: `data` as written, or the phases of a transition record. */
export interface TimelineRow {
  kind: string;
  onboardingId: string | null;
  data: string | null;
  fromPhase: string | null;
  toPhase: string | null;
  actor: string;
  at: number;
}

/** What the command line's reports read: timelines and deliveries of one workspace. */
export function createReportsStore(sql: Sql) {
  const idOf = (table: "customers" | "onboardings", column: "id" | "display_id") => sql.statement<{ id: string }>(`SELECT id FROM ${table} WHERE org_id = $orgId AND ${column} = $ref`);
  const byRef = {
    customers: { id: idOf("customers", "id"), displayId: idOf("customers", "display_id") },
    onboardings: { id: idOf("onboardings", "id"), displayId: idOf("onboardings", "display_id") },
  };
  // A customer's timeline: its phase changes are their transition records (written once, in the
  // change's transaction, since #26's nineteenth pass); `timeline_events` holds what earlier
  // versions wrote there, a copy of their transition or a job's record of one. A change found in
  // both is shown once, from `timeline_events` (matched by onboarding and instant, which each
  // change has its own of).
  const timelineOf = sql.statement<TimelineRow>(
    `SELECT kind, onboarding_id AS "onboardingId", data, CAST(NULL AS TEXT) AS "fromPhase", CAST(NULL AS TEXT) AS "toPhase", actor, at
       FROM timeline_events WHERE customer_id = $customerId
     UNION ALL
     SELECT 'phase_changed', t.onboarding_id, CAST(NULL AS TEXT), t.from_phase, t.to_phase, t.actor, t.at
       FROM phase_transitions t
      WHERE t.org_id = $orgId AND t.customer_id = $customerId
        AND NOT EXISTS (SELECT 1 FROM timeline_events e WHERE e.customer_id = t.customer_id AND e.at = t.at AND e.onboarding_id = t.onboarding_id AND e.kind = 'phase_changed')
     ORDER BY at, "onboardingId", kind`,
    { decode: decoder({ at: "number" }) },
  );
  const deliveriesOf = sql.statement<{
    id: string; kind: string; onboarding_id: string; target: string | null; status: string; detail: string | null; attempts: number; created_at: number; updated_at: number;
  }>(
    `SELECT id, kind, onboarding_id, target, status, detail, attempts, created_at, updated_at FROM deliveries
     WHERE org_id = $orgId AND (CAST($onboardingId AS TEXT) IS NULL OR onboarding_id = $onboardingId) ORDER BY created_at DESC`,
    { decode: decoder({ created_at: "number", updated_at: "number" }) },
  );
  // Rows and pages together (shared/db/activity.store.ts).
  const activity = createActivityStore(sql);
  return {
    /** A workspace's newest activity entries. */
    *activityOf(orgId: string, limit: number) {
      const entries = yield* activity.newest(orgId, null, null, limit);
      return entries.map(({ request_id, actor, method, route, status, repeat_count, address, duration_ms, at }) => ({ request_id, actor, method, route, status, repeat_count, address, duration_ms, at }));
    },
    /** A customer's or onboarding's id from its `id` or, when made only of digits, its `display_id`. */
    *idByRef(table: "customers" | "onboardings", orgId: string, ref: string): Flow<string | undefined> {
      const row = /^\d{1,15}$/.test(ref) ? yield* byRef[table].displayId.get({ orgId, ref: Number(ref) }) : yield* byRef[table].id.get({ orgId, ref });
      return row?.id;
    },
    /** A customer's timeline, oldest first (see above). */
    timelineOf: (orgId: string, customerId: string) => timelineOf.all({ orgId, customerId }),
    deliveriesOf: (orgId: string, onboardingId: string | null) => deliveriesOf.all({ orgId, onboardingId }),
  };
}
