import { createActivityStore } from "../../shared/db/activity.store.ts";
import { writeTransaction, type Db } from "../../shared/db/client.ts";
import type { QueueHandlers } from "./types.ts";

/**
 * The `records` queue: internal records of what happened. Every insert is keyed by the job
 * (or, for activity, by the request id), so a job that runs twice writes once.
 */
export function recordHandlers(db: Db, scanReminders: () => Promise<unknown>): QueueHandlers<"records"> {
  const sqlite = db.$client;
  const timeline = sqlite.prepare(
    `INSERT INTO timeline_events (source, org_id, customer_id, onboarding_id, kind, data, actor, at)
     VALUES ($source, $orgId, $customerId, $onboardingId, 'phase_changed', $data, $actor, $at) ON CONFLICT(source) DO NOTHING`,
  );
  const transition = sqlite.prepare(
    `INSERT INTO phase_transitions (source, org_id, customer_id, onboarding_id, from_phase, to_phase, at, actor, phase_entered_at, sla_suspended_seconds)
     VALUES ($source, $orgId, $customerId, $onboardingId, $from, $to, $at, $actor, $phaseEnteredAt, $slaSuspendedSeconds)
     ON CONFLICT(source) DO NOTHING`,
  );
  const activity = createActivityStore(db);

  return {
    "timeline.phase_changed": async (p, job) =>
      timeline.run({
        source: job.id!,
        orgId: p.org_id,
        customerId: p.customer_id,
        onboardingId: p.onboarding_id,
        data: JSON.stringify({ from: p.from, to: p.to }),
        actor: p.actor,
        at: p.at,
      }),
    "phase_transition.record": async (p, job) =>
      transition.run({
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
      }),
    "activity.batch": async (p) =>
      writeTransaction(db, () => {
        for (const entry of p.entries) activity.insert(entry);
      }),
    "reminders.scan": () => scanReminders(),
  };
}
