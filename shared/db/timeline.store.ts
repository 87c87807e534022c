import type { Flow } from "./flow.ts";
import { insertRows, type Sql } from "./sql.ts";

/** A timeline event on the customer for a phase change (`data`: the change as JSON). */
export type PhaseChangedRecord = {
  /** Unique per change (`<onboarding id>:<at>`), or the job id of an event queued by an older version: a second write is a no-op. */
  source: string;
  orgId: string;
  customerId: string;
  onboardingId: string;
  data: string;
  actor: string;
  at: number;
};

/**
 * The customers' timelines. A phase change writes its event in its own transaction (the API,
 * since #26's tenth pass, as it writes its phase-transition record); the worker writes the
 * events that older versions queued as `timeline.phase_changed` jobs. Keyed by `source`, so a
 * change or a job written twice is written once.
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
    /** In the change's transaction, sent without waiting (`Statement.send`) with its other writes. */
    phaseChanged: (record: PhaseChangedRecord): Flow<void> => phaseChanged.send([record]),
    /** The same for the phase changes of a batch made together. */
    phaseChangedMany: (records: readonly PhaseChangedRecord[]): Flow<void> => phaseChanged.send(records),
  };
}

export type TimelineStore = ReturnType<typeof createTimelineStore>;
