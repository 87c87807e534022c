import type { Flow } from "../../shared/db/flow.ts";
import type { PhaseChange, PhaseDurationStore } from "../../shared/db/phase-durations.store.ts";
import type { PhaseChangedRecord, TimelineStore } from "../../shared/db/timeline.store.ts";
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
 *
 * Everything here is sent without waiting but for two reads of a move into `launch`. Answers
 * what is left to write: the visit's share of its month, rows every change of the workspace
 * shares, which the caller writes among its last statements (see `PhaseDurationStore.recordNew`).
 */
export function* queuePhaseChangeEffects(
  deps: Pick<CoreDeps, "outbox" | "workspaces"> & { phaseDurations: PhaseDurationStore; timeline: TimelineStore },
  actor: Actor,
  before: OnboardingRow,
  after: OnboardingRow,
  at: number,
  suspendedMicrosInPhase: number,
): Flow<() => Flow<void>> {
  const { timeline, transition } = phaseChangeRecords(actor, before, after, at, suspendedMicrosInPhase);
  yield* deps.timeline.phaseChanged(timeline);
  const addToMonths = yield* deps.phaseDurations.recordNew(transition);

  if (after.phase !== "launch" || actor.mode !== "live") return addToMonths;
  const launch = { org_id: actor.orgId, onboarding_id: after.id, customer_id: after.customerId, actor: actor.keyName, at };
  yield* deps.outbox.add(actor.orgId, "outbound", "launch.slack_dm", { ...launch, csm_id: after.csmId }, at);
  yield* deps.outbox.add(actor.orgId, "outbound", "launch.calendar_entry", launch, at);
  if (yield* deps.workspaces.launchRecapEnabled(actor.orgId)) {
    yield* deps.outbox.add(actor.orgId, "outbound", "launch.recap_email", launch, at);
  }
  return addToMonths;
}

/** A phase change's two records: the customer's timeline event and the transition that ends the visit of `before.phase`. */
export function phaseChangeRecords(
  actor: Actor,
  before: OnboardingRow,
  after: OnboardingRow,
  at: number,
  suspendedMicrosInPhase: number,
): { timeline: PhaseChangedRecord; transition: PhaseChange } {
  // `at` is unique per onboarding (each change is at least 1 µs after the last).
  const source = `${after.id}:${at}`;
  return {
    timeline: {
      source,
      orgId: actor.orgId,
      customerId: after.customerId,
      onboardingId: after.id,
      data: JSON.stringify({ from: before.phase, to: after.phase }),
      actor: actor.keyName,
      at,
    },
    transition: {
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
    },
  };
}
