import type { Flow } from "./flow.ts";
import { insertRows, type Sql } from "./sql.ts";

/** A timeline event on the customer for a phase change (`data`: the change as JSON). */
export type PhaseChangedRecord = {
  /** The id of the job that queued it: a second write is a no-op. */
  source: string;
  orgId: string;
  customerId: string;
  onboardingId: string;
  data: string;
  actor: string;
  at: number;
};

/**
 * The customers' timeline rows of earlier versions. A phase change's entry in the timeline is its
 * phase-transition record (admin/reports.store.ts reads both tables); this table keeps what
 * earlier versions wrote: a copy of each change's transition (in the change's transaction, from
 * #26's tenth to its nineteenth pass) and, before that, the `timeline.phase_changed` jobs' rows.
 * The worker still writes the jobs an older API queued, so an upgrade with such jobs in flight
 * loses none. Keyed by `source`, so a job written twice is written once.
 */
export function createTimelineStore(sql: Sql) {
  const COLUMNS = { source: "source", org_id: "orgId", customer_id: "customerId", onboarding_id: "onboardingId", data: "data", actor: "actor", at: "at" } as const;
  const phaseChanged = insertRows(
    sql,
    "timeline_events",
    [...Object.keys(COLUMNS), "kind"],
    (record: PhaseChangedRecord, column) => (column === "kind" ? "phase_changed" : record[COLUMNS[column as keyof typeof COLUMNS]]),
    "ON CONFLICT (source) DO NOTHING",
  );
  return {
    /** Writes a queued job's event (a second write of the same `source` is a no-op). */
    phaseChanged: (record: PhaseChangedRecord): Flow<number> => phaseChanged([record]),
  };
}

export type TimelineStore = ReturnType<typeof createTimelineStore>;
