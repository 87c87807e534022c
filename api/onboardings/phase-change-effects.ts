import type { Flow } from "../../shared/db/flow.ts";
import type { PhaseChange, PhaseDurationStore } from "../../shared/db/phase-durations.store.ts";
import type { OnboardingRow } from "../../shared/db/schema.ts";
import type { Actor } from "../auth/actor.ts";
import type { CoreDeps } from "../deps.ts";

/**
 * The side effects of a phase change, in the caller's transaction: the phase-transition record
 * of the visit it ends, written here (so the phase durations and the customer's timeline answer
 * the change the moment it commits, and no crash can keep the change without it), and, on
 * entering `launch` with a live key, the launch automations as outbox rows. A test key changes
 * data (its transitions count) but never queues anything outbound.
 *
 * The transition record is also the change's entry in the customer's timeline
 * (admin/reports.store.ts). Until #26's nineteenth pass a second row in `timeline_events`
 * copied it (a `records` job before the tenth pass): a row and three index entries more per
 * change, about a tenth of a PostgreSQL PATCH's throughput (bench/RESULTS.md), for a copy.
 *
 * Everything here is sent without waiting but for two reads of a move into `launch`. Answers
 * what is left to write: the visit's share of its month, rows every change of the workspace
 * shares, which the caller writes among its last statements (see `PhaseDurationStore.recordNew`).
 */
export function* queuePhaseChangeEffects(
  deps: Pick<CoreDeps, "outbox" | "workspaces"> & { phaseDurations: PhaseDurationStore },
  actor: Actor,
  before: OnboardingRow,
  after: OnboardingRow,
  at: number,
  suspendedMicrosInPhase: number,
): Flow<() => Flow<void>> {
  const addToMonths = yield* deps.phaseDurations.recordNew(phaseTransition(actor, before, after, at, suspendedMicrosInPhase));

  if (after.phase !== "launch" || actor.mode !== "live") return addToMonths;
  const launch = { org_id: actor.orgId, onboarding_id: after.id, customer_id: after.customerId, actor: actor.keyName, at };
  yield* deps.outbox.add(actor.orgId, "outbound", "launch.slack_dm", { ...launch, csm_id: after.csmId }, at);
  yield* deps.outbox.add(actor.orgId, "outbound", "launch.calendar_entry", launch, at);
  if (yield* deps.workspaces.launchRecapEnabled(actor.orgId)) {
    yield* deps.outbox.add(actor.orgId, "outbound", "launch.recap_email", launch, at);
  }
  return addToMonths;
}

/** A phase change's record: the transition that ends the visit of `before.phase`. */
export function phaseTransition(actor: Actor, before: OnboardingRow, after: OnboardingRow, at: number, suspendedMicrosInPhase: number): PhaseChange {
  return {
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
  };
}
