import type { Flow } from "../../shared/db/flow.ts";
import type { CoreDeps } from "../deps.ts";
import type { WebhookEndpointStore } from "../../shared/db/webhook-endpoints.store.ts";

/** Whether an endpoint subscribed to `list` receives events of `type`. */
export const subscribes = (list: readonly string[], type: string): boolean =>
  list.some((pattern) => pattern === "*" || pattern === type || (pattern.endsWith(".*") && type.startsWith(pattern.slice(0, -1))));

/**
 * Queues a change's live events for every enabled endpoint that subscribes to them: one outbox
 * row per (event, endpoint), in the change's transaction, so they are delivered if and only if
 * the change commits. A test key's change queues nothing (its events are in the feed only).
 */
export function* queueDeliveries(
  deps: { webhookEndpoints: WebhookEndpointStore; outbox: CoreDeps["outbox"] },
  orgId: string,
  livemode: boolean,
  events: readonly { id: string; type: string }[],
  now: number,
): Flow<void> {
  if (!livemode || events.length === 0) return;
  const endpoints = yield* deps.webhookEndpoints.enabled(orgId);
  if (endpoints.length === 0) return;
  const jobs = events.flatMap((event) =>
    endpoints.filter((endpoint) => subscribes(endpoint.enabledEvents, event.type)).map((endpoint) => ({ org_id: orgId, endpoint_id: endpoint.id, event_id: event.id })),
  );
  yield* deps.outbox.addMany(orgId, "webhooks", "webhook.deliver", jobs, now);
}
