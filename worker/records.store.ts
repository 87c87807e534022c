import type { Flow } from "../shared/db/flow.ts";
import { createActivityStore } from "../shared/db/activity.store.ts";
import { createPhaseDurationStore } from "../shared/db/phase-durations.store.ts";
import type { Sql } from "../shared/db/sql.ts";
import type { Transaction } from "../shared/db/database.ts";
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

/** The `records` queue's writes, each keyed by its job (`source`) so a job run twice, here or on another worker, writes once. */
export function createRecordsStore(sql: Sql, transaction: Transaction) {
  const timeline = sql.statement(
    `INSERT INTO timeline_events (source, org_id, customer_id, onboarding_id, kind, data, actor, at)
     VALUES ($source, $orgId, $customerId, $onboardingId, 'phase_changed', $data, $actor, $at) ON CONFLICT (source) DO NOTHING`,
  );
  const activity = createActivityStore(sql);

  return {
    phaseChanged: (e: PhaseChangedRecord) => timeline.run(e),
    /** Phase transitions and their monthly aggregate (shared with the API, which records them since the phase-durations release). */
    phaseDurations: createPhaseDurationStore(sql),
    /** A batch in one transaction; an entry already written (by request id) is skipped. */
    activityBatch: (entries: readonly ActivityEntry[]): Flow<void> => transaction(() => activity.insertMany(entries)),
  };
}
