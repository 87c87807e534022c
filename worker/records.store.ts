import { createActivityStore } from "../shared/db/activity.store.ts";
import { writeTransaction, type Db } from "../shared/db/client.ts";
import { col as c } from "../shared/db/raw-select.ts";
import { phaseTransitions, timelineEvents } from "../shared/db/schema.ts";
import type { ActivityEntry } from "../shared/jobs/catalog.ts";

/** A timeline event on the customer for a phase change (`data`: the change as JSON). */
export type PhaseChangedRecord = {
  source: string;
  orgId: string;
  customerId: string;
  onboardingId: string;
  data: string;
  actor: string;
  at: number;
};

/** A phase-transition record, for SLA reporting. */
export type TransitionRecord = {
  source: string;
  orgId: string;
  customerId: string;
  onboardingId: string;
  from: string;
  to: string;
  at: number;
  actor: string;
  phaseEnteredAt: number;
  slaSuspendedSeconds: number;
};

/**
 * The `records` queue's writes, each keyed by its job (`source`) so a job run twice writes once.
 * Raw prepared statements (the worker's throughput) with column names from the schema.
 */
export function createRecordsStore(db: Db) {
  const sqlite = db.$client;
  const e = timelineEvents;
  const timeline = sqlite.prepare(
    `INSERT INTO "timeline_events" (${[e.source, e.orgId, e.customerId, e.onboardingId, e.kind, e.data, e.actor, e.at].map(c).join(", ")})
     VALUES ($source, $orgId, $customerId, $onboardingId, 'phase_changed', $data, $actor, $at) ON CONFLICT(${c(e.source)}) DO NOTHING`,
  );
  const t = phaseTransitions;
  const transition = sqlite.prepare(
    `INSERT INTO "phase_transitions" (${[t.source, t.orgId, t.customerId, t.onboardingId, t.fromPhase, t.toPhase, t.at, t.actor, t.phaseEnteredAt, t.slaSuspendedSeconds].map(c).join(", ")})
     VALUES ($source, $orgId, $customerId, $onboardingId, $from, $to, $at, $actor, $phaseEnteredAt, $slaSuspendedSeconds)
     ON CONFLICT(${c(t.source)}) DO NOTHING`,
  );
  const activity = createActivityStore(db);

  return {
    phaseChanged: (e: PhaseChangedRecord): void => void timeline.run(e),
    transition: (e: TransitionRecord): void => void transition.run(e),
    /** A batch in one transaction; an entry already written (by request id) is skipped. */
    activityBatch: (entries: readonly ActivityEntry[]) =>
      writeTransaction(db, () => {
        for (const entry of entries) activity.insert(entry);
      }),
  };
}
