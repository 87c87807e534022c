import { together, type Flow } from "../../shared/db/flow.ts";
import type { EventRow } from "../../shared/db/schema.ts";
import { newId } from "../../shared/ids.ts";
import type { Actor } from "../auth/actor.ts";
import { apiOrigin, eventRows } from "../events/events.service.ts";
import type { Together } from "../http/together.ts";
import type { RequestInput } from "../http/route.ts";
import { isDisplayIdRef } from "../refs.ts";
import type { NextSequenceBlocks, SequenceBlock } from "../sequences.store.ts";
import { queueDeliveriesAcross, type WebhookTargets } from "../webhooks/webhooks.fanout.ts";
import { toOnboardingResource } from "./onboardings.resource.ts";
import type { CreateOnboardingInput } from "./onboardings.schema.ts";
import { newOnboarding, type OnboardingDeps } from "./onboardings.service.ts";

type CreateInput = RequestInput<undefined, undefined, CreateOnboardingInput> & { actor: Actor };

interface Read {
  /** Each workspace's share of the display ids and instants. */
  blocks: Map<string, SequenceBlock>;
  /** Each live workspace's enabled webhook endpoints. */
  endpoints: Map<string, WebhookTargets>;
}

/** The customer's id. A reference made of digits, or a number, is a display id (api/refs.ts): those creates run alone, the batch looks customers up by id. */
const customerIdOf = (input: CreateInput) => input.body.customer_id as string;

/**
 * `POST /api/v1/onboardings` made together (api/http/together.ts): what `createOnboarding`
 * does for one request, for a batch. The customers are read under the shared lock, as alone;
 * each workspace's sequence row moves once by its count in the batch (its creates get display
 * ids and `created_at` in the batch's order); each workspace's events take their feed
 * positions with one statement, as the batch's last writes.
 */
export function onboardingsTogether(deps: OnboardingDeps & { sequenceBlocks: NextSequenceBlocks }): Together<CreateInput, Read> {
  return {
    accepts: (input) => !isDisplayIdRef(input.body.customer_id),

    *read(inputs, now): Flow<{ alone: number[]; state: Read }> {
      const counts = new Map<string, number>();
      for (const { actor } of inputs) counts.set(actor.orgId, (counts.get(actor.orgId) ?? 0) + 1);
      // Test keys' changes go to the feed only: their workspaces' endpoints are not read for them.
      const live = [...new Set(inputs.filter((input) => input.actor.mode === "live").map((input) => input.actor.orgId))];
      const [customers, endpoints, blocks] = yield* together(
        deps.customers.referredTo([...new Set(inputs.map(customerIdOf))]),
        deps.webhookEndpoints.enabledIn(live),
        deps.sequenceBlocks("onboarding", counts, now),
      );
      const workspaceOf = new Map(customers.map((customer) => [customer.id, customer.orgId]));
      // Missing, deleted or another workspace's: alone, the request answers 404 customer_not_found.
      const alone = inputs.flatMap((input, i) => (workspaceOf.get(customerIdOf(input)) === input.actor.orgId ? [] : [i]));
      return { alone, state: { blocks, endpoints } };
    },

    *write(inputs, { blocks, endpoints }, now): Flow<string[]> {
      const next = new Map([...blocks].map(([orgId, block]) => [orgId, { ...block }]));
      const rows = inputs.map((input) => {
        const block = next.get(input.actor.orgId)!;
        return newOnboarding(input.actor, customerIdOf(input), input.body, block.firstDisplayId++, block.firstCreatedAt++);
      });
      const resources = rows.map(toOnboardingResource);
      const bodies = resources.map((resource) => JSON.stringify(resource));
      const events: Omit<EventRow, "position">[] = inputs.map((input, i) => {
        const [event] = eventRows(apiOrigin(input), [{ type: "onboarding.created", object: resources[i]! }], [newId("evt")], now, [bodies[i]]);
        return { ...event!, orgId: input.actor.orgId };
      });
      yield* deps.onboardings.insertMany(rows);
      yield* queueDeliveriesAcross(deps, endpoints, events, now);
      yield* deps.events.appendAcross(events);
      return bodies;
    },
  };
}
