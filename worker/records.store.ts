import type { Flow } from "../shared/db/flow.ts";
import { createActivityStore } from "../shared/db/activity.store.ts";
import { createPhaseDurationStore } from "../shared/db/phase-durations.store.ts";
import type { Sql } from "../shared/db/sql.ts";
import type { Transaction } from "../shared/db/database.ts";
import type { ActivityEntry } from "../shared/jobs/catalog.ts";
import { createTimelineStore } from "../shared/db/timeline.store.ts";

/** The `records` queue's writes, each keyed by its job (`source`) so a job run twice, here or on another worker, writes once. */
export function createRecordsStore(sql: Sql, transaction: Transaction) {
  const activity = createActivityStore(sql);

  return {
    /** Timeline events queued by versions before the API wrote them in the change's own transaction. */
    timeline: createTimelineStore(sql),
    /** Phase transitions and their monthly aggregate (shared with the API, which records them since the phase-durations release). */
    phaseDurations: createPhaseDurationStore(sql),
    /** A batch in one transaction; an entry already written (by request id) is skipped. */
    activityBatch: (entries: readonly ActivityEntry[]): Flow<void> => transaction(() => activity.insertMany(entries)),
  };
}
