import { run } from "../../shared/db/flow.ts";
import type { Transaction } from "../../shared/db/database.ts";
import type { WorkerStores } from "../stores.ts";
import type { QueueHandlers } from "./types.ts";

/**
 * The `records` queue: internal records of what happened. Every insert is keyed by the job
 * (or, for activity, by the request id), so a job that runs twice writes once.
 */
export function recordHandlers(store: WorkerStores["records"], transaction: Transaction, scanReminders: () => Promise<unknown>, prune: () => Promise<unknown>): QueueHandlers<"records"> {
  return {
    // Queued only by versions before the API wrote timeline events in the change's own
    // transaction: kept so that an upgrade with such jobs still in flight loses none.
    "timeline.phase_changed": async (p, job) =>
      run(store.timeline.phaseChanged({
        source: job.id!,
        orgId: p.org_id,
        customerId: p.customer_id,
        onboardingId: p.onboarding_id,
        data: JSON.stringify({ from: p.from, to: p.to }),
        actor: p.actor,
        at: p.at,
      })),
    // Queued only by versions before the API recorded transitions in the change's own
    // transaction: kept so that an upgrade with such jobs still in flight loses none. The
    // launch's delay is unknown for them (the target date of that moment was not queued).
    "phase_transition.record": async (p, job) =>
      run(
        transaction(() =>
          store.phaseDurations.record({
            source: job.id!,
            orgId: p.org_id,
            customerId: p.customer_id,
            onboardingId: p.onboarding_id,
            from: p.from,
            to: p.to,
            at: p.at,
            actor: p.actor,
            phaseEnteredAt: p.phase_entered_at,
            slaSuspendedSeconds: p.sla_suspended_seconds,
            targetMicros: null,
          }),
        ),
      ),
    "activity.batch": async (p) => run(store.activityBatch(p.entries)),
    "reminders.scan": () => scanReminders(),
    "retention.prune": () => prune(),
  };
}
