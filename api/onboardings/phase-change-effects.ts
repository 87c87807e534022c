import type { Flow } from "../../shared/db/flow.ts";
import type { PhaseDurationStore } from "../../shared/db/phase-durations.store.ts";
import type { TimelineStore } from "../../shared/db/timeline.store.ts";
import type { OnboardingRow } from "../../shared/db/schema.ts";
import type { Actor } from "../auth/actor.ts";
import type { CoreDeps } from "../deps.ts";

/**
 * The side effects of a phase change, in the caller's transaction: the customer's timeline
 * event and the phase-transition record of the visit it ends, both written here (so the
 * timeline and the phase durations answer the change the moment it commits, and no crash can
 * keep the change without them), and, on entering `launch` with a live key, the launch
 * automations as outbox rows. A test key changes data (its timeline and transitions count) but
 * never queues anything outbound.
 *
 * The timeline event was a `records` job until #26's tenth pass: a job per phase change, with
 * its outbox row, relay, Redis round and the worker's write, cost more than the change itself
 * (bench/RESULTS.md), and on SQLite the worker's write waited for the API's write lock.
 */
export function* queuePhaseChangeEffects(
  deps: Pick<CoreDeps, "outbox" | "workspaces"> & { phaseDurations: PhaseDurationStore; timeline: TimelineStore },
  actor: Actor,
  before: OnboardingRow,
  after: OnboardingRow,
  at: number,
  suspendedMicrosInPhase: number,
): Flow<void> {
  // `at` is unique per onboarding (each change is at least 1 µs after the last).
  const source = `${after.id}:${at}`;
  yield* deps.timeline.phaseChanged({
    source,
    orgId: actor.orgId,
    customerId: after.customerId,
    onboardingId: after.id,
    data: JSON.stringify({ from: before.phase, to: after.phase }),
    actor: actor.keyName,
    at,
  });
  yield* deps.phaseDurations.record({
    source,
    orgId: actor.orgId,
    customerId: after.customerId,
    onboardingId: after.id,
    from: before.phase,
    to: after.phase,
    at,
    actor: actor.keyName,
    phaseEnteredAt: before.phaseEnteredAt,
    slaSuspendedSeconds: suspendedMicrosInPhase / 1_000_000,
    targetMicros: after.targetLaunchAt,
  });

  if (after.phase !== "launch" || actor.mode !== "live") return;
  const launch = { org_id: actor.orgId, onboarding_id: after.id, customer_id: after.customerId, actor: actor.keyName, at };
  yield* deps.outbox.add(actor.orgId, "outbound", "launch.slack_dm", { ...launch, csm_id: after.csmId }, at);
  yield* deps.outbox.add(actor.orgId, "outbound", "launch.calendar_entry", launch, at);
  if (yield* deps.workspaces.launchRecapEnabled(actor.orgId)) {
    yield* deps.outbox.add(actor.orgId, "outbound", "launch.recap_email", launch, at);
  }
}
