import type { Flow } from "../../shared/db/flow.ts";
import type { PhaseDurationStore } from "../../shared/db/phase-durations.store.ts";
import type { OnboardingRow } from "../../shared/db/schema.ts";
import type { Actor } from "../auth/actor.ts";
import type { CoreDeps } from "../deps.ts";

/**
 * The side effects of a phase change, in the caller's transaction: the phase-transition record
 * of the visit it ends (written here, so the phase durations answer it the moment the change
 * commits), and as outbox rows a timeline event and, on entering `launch` with a live key, the
 * launch automations. A test key changes data (its transitions count) but never queues
 * anything outbound.
 */
export function* queuePhaseChangeEffects(
  deps: Pick<CoreDeps, "outbox" | "workspaces"> & { phaseDurations: PhaseDurationStore },
  actor: Actor,
  before: OnboardingRow,
  after: OnboardingRow,
  at: number,
  suspendedMicrosInPhase: number,
): Flow<void> {
  const change = {
    org_id: actor.orgId,
    customer_id: after.customerId,
    onboarding_id: after.id,
    from: before.phase,
    to: after.phase,
    at,
    actor: actor.keyName,
  };
  yield* deps.outbox.add(actor.orgId, "records", "timeline.phase_changed", change, at);
  yield* deps.phaseDurations.record({
    // `at` is unique per onboarding (each change is at least 1 µs after the last).
    source: `${after.id}:${at}`,
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
