import { run } from "../../shared/db/flow.ts";
import type { WorkerStores } from "../stores.ts";
import type { QueueHandlers } from "./types.ts";

/**
 * The `records` queue: internal records of what happened. Every insert is keyed by the job
 * (or, for activity, by the request id), so a job that runs twice writes once.
 */
export function recordHandlers(store: WorkerStores["records"], scanReminders: () => Promise<unknown>, prune: () => Promise<unknown>): QueueHandlers<"records"> {
  return {
    "timeline.phase_changed": async (p, job) =>
      run(store.phaseChanged({
        source: job.id!,
        orgId: p.org_id,
        customerId: p.customer_id,
        onboardingId: p.onboarding_id,
        data: JSON.stringify({ from: p.from, to: p.to }),
        actor: p.actor,
        at: p.at,
      })),
    "phase_transition.record": async (p, job) =>
      run(store.transition({
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
      })),
    "activity.batch": async (p) => run(store.activityBatch(p.entries)),
    "reminders.scan": () => scanReminders(),
    "retention.prune": () => prune(),
  };
}
