import { together, type Flow } from "../../shared/db/flow.ts";
import type { EventRow, OnboardingRow } from "../../shared/db/schema.ts";
import { newId } from "../../shared/ids.ts";
import type { Actor } from "../auth/actor.ts";
import { apiOrigin, eventRows } from "../events/events.service.ts";
import type { Together } from "../http/together.ts";
import type { RequestInput } from "../http/route.ts";
import { isDisplayIdRef } from "../refs.ts";
import { queueDeliveriesAcross, type WebhookTargets } from "../webhooks/webhooks.fanout.ts";
import type { PhaseChange } from "../../shared/db/phase-durations.store.ts";
import { toOnboardingResource } from "./onboardings.resource.ts";
import type { UpdateOnboardingInput } from "./onboardings.schema.ts";
import { planUpdate, updateEvents, type OnboardingDeps } from "./onboardings.service.ts";
import { phaseTransition } from "./phase-change-effects.ts";

type UpdateInput = RequestInput<{ onboarding_ref: string }, undefined, UpdateOnboardingInput> & { actor: Actor };

interface Read {
  /** The batch's onboardings by id, as read and locked. */
  rows: Map<string, OnboardingRow>;
  /** Each live workspace's enabled webhook endpoints. */
  endpoints: Map<string, WebhookTargets>;
}

/**
 * `PATCH /api/v1/onboardings/:onboarding_ref` made together (api/http/together.ts): what
 * `updateOnboarding` does for one request, for a batch, with the same decision (`planUpdate`)
 * and the same records, in as many statements as one PATCH.
 *
 * - The onboardings are read and locked in one statement, in id order. A request whose
 *   onboarding is missing, deleted or another workspace's leaves the batch and runs alone,
 *   where it answers 404.
 * - PATCHes of one onboarding in one batch apply in the order they came, each to what the one
 *   before made, as they would one after the other; the row is written once, as the last left it.
 * - The workspace's shared rows go last, as alone: the visits' month aggregate (one upsert per
 *   row, in key order) and the feed positions (`appendAcross`).
 *
 * A move into `launch` runs alone: its launch automations read the workspace's settings and
 * its first-launch record reads the onboarding's earlier transitions, which a batch of two
 * launches of one onboarding would read before either is written.
 */
export function onboardingUpdatesTogether(deps: OnboardingDeps): Together<UpdateInput, Read> {
  return {
    accepts: (input) => !isDisplayIdRef(input.params.onboarding_ref) && input.body.phase !== "launch",

    *read(inputs): Flow<{ alone: number[]; state: Read }> {
      const ids = [...new Set(inputs.map((input) => input.params.onboarding_ref))];
      // Test keys' changes go to the feed only: their workspaces' endpoints are not read for them.
      const live = [...new Set(inputs.filter((input) => input.actor.mode === "live").map((input) => input.actor.orgId))];
      const [found, endpoints] = yield* together(deps.onboardings.byIds(ids), deps.webhookEndpoints.enabledIn(live));
      const rows = new Map(found.map((row) => [row.id, row]));
      const alone = inputs.flatMap((input, i) => (rows.get(input.params.onboarding_ref)?.orgId === input.actor.orgId ? [] : [i]));
      return { alone, state: { rows, endpoints } };
    },

    *write(inputs, { rows, endpoints }, now): Flow<string[]> {
      const latest = new Map(rows);
      const transitions: PhaseChange[] = [];
      const events: Omit<EventRow, "position">[] = [];
      const bodies = inputs.map((input) => {
        const id = input.params.onboarding_ref;
        const current = latest.get(id)!;
        const plan = planUpdate(current, input.body, input.actor, now);
        if (!plan) return JSON.stringify(toOnboardingResource(current));
        const { next, at, phaseChange } = plan;
        latest.set(id, next);
        if (phaseChange) transitions.push(phaseTransition(input.actor, current, next, at, phaseChange.suspendedInPhase));
        const { resource, events: pending } = updateEvents(current, next);
        const body = JSON.stringify(resource);
        // Every event of an update carries the updated onboarding: its text is the response's.
        const made = eventRows(apiOrigin(input), pending, pending.map(() => newId("evt")), now, pending.map(() => body));
        for (const event of made) events.push({ ...event, orgId: input.actor.orgId });
        return body;
      });
      const addToMonths = transitions.length > 0 ? yield* deps.phaseDurations.recordManyNew(transitions) : null;
      yield* deps.onboardings.updateMany([...latest].flatMap(([id, next]) => (next === rows.get(id) ? [] : [{ current: rows.get(id)!, next }])));
      if (addToMonths) yield* addToMonths();
      yield* queueDeliveriesAcross(deps, endpoints, events, now);
      yield* deps.events.appendAcross(events);
      return bodies;
    },
  };
}
