import type { Flow } from "../../shared/db/flow.ts";
import type { OnboardingRow } from "../../shared/db/schema.ts";
import type { Actor } from "../auth/actor.ts";
import type { CoreDeps } from "../deps.ts";

/**
 * The side effects of a phase change, as outbox rows in the caller's transaction: always a
 * timeline event and a phase-transition record; on entering `launch` with a live key, the
 * launch automations. A test key changes data but never queues anything outbound.
 */
export function* queuePhaseChangeEffects(
  deps: Pick<CoreDeps, "outbox" | "workspaces">,
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
  yield* deps.outbox.add(
    actor.orgId,
    "records",
    "phase_transition.record",
    { ...change, phase_entered_at: before.phaseEnteredAt, sla_suspended_seconds: suspendedMicrosInPhase / 1_000_000 },
    at,
  );

  if (after.phase !== "launch" || actor.mode !== "live") return;
  const launch = { org_id: actor.orgId, onboarding_id: after.id, customer_id: after.customerId, actor: actor.keyName, at };
  yield* deps.outbox.add(actor.orgId, "outbound", "launch.slack_dm", { ...launch, csm_id: after.csmId }, at);
  yield* deps.outbox.add(actor.orgId, "outbound", "launch.calendar_entry", launch, at);
  if (yield* deps.workspaces.launchRecapEnabled(actor.orgId)) {
    yield* deps.outbox.add(actor.orgId, "outbound", "launch.recap_email", launch, at);
  }
}
