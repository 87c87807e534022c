import { sql } from "drizzle-orm";
import { createActivityStore } from "../shared/db/activity.store.ts";
import { writeTransaction, type Db } from "../shared/db/client.ts";
import { phaseTransitions, timelineEvents } from "../shared/db/schema.ts";
import type { ActivityEntry } from "../shared/jobs/catalog.ts";

const p = sql.placeholder;

/** The `records` queue's writes, each keyed by its job (`source`) so a job run twice writes once. */
export function createRecordsStore(db: Db) {
  const timeline = db
    .insert(timelineEvents)
    .values({ source: p("source"), orgId: p("orgId"), customerId: p("customerId"), onboardingId: p("onboardingId"), kind: "phase_changed", data: p("data"), actor: p("actor"), at: p("at") })
    .onConflictDoNothing({ target: timelineEvents.source })
    .prepare();
  const transition = db
    .insert(phaseTransitions)
    .values({
      source: p("source"),
      orgId: p("orgId"),
      customerId: p("customerId"),
      onboardingId: p("onboardingId"),
      fromPhase: p("from"),
      toPhase: p("to"),
      at: p("at"),
      actor: p("actor"),
      phaseEnteredAt: p("phaseEnteredAt"),
      slaSuspendedSeconds: p("slaSuspendedSeconds"),
    })
    .onConflictDoNothing({ target: phaseTransitions.source })
    .prepare();
  const activity = createActivityStore(db);

  return {
    phaseChanged: (e: { source: string; orgId: string; customerId: string; onboardingId: string; data: string; actor: string; at: number }) => void timeline.run(e),
    transition: (e: {
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
    }) => void transition.run(e),
    /** A batch in one transaction; an entry already written (by request id) is skipped. */
    activityBatch: (entries: readonly ActivityEntry[]) =>
      writeTransaction(db, () => {
        for (const entry of entries) activity.insert(entry);
      }),
  };
}
