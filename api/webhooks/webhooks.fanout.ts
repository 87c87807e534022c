import type { Flow } from "../../shared/db/flow.ts";
import type { CoreDeps } from "../deps.ts";
import type { WebhookEndpointStore } from "../../shared/db/webhook-endpoints.store.ts";

/** Whether an endpoint subscribed to `list` receives events of `type`. */
export const subscribes = (list: readonly string[], type: string): boolean =>
  list.some((pattern) => pattern === "*" || pattern === type || (pattern.endsWith(".*") && type.startsWith(pattern.slice(0, -1))));

/** The endpoints a change's events may go to: read in the change's transaction, before it takes its locks. */
export type WebhookTargets = readonly { id: string; enabledEvents: readonly string[] }[];

/** The workspace's enabled endpoints, for a live change; none for a test key's change (its events are in the feed only). */
export function* webhookTargets(deps: { webhookEndpoints: WebhookEndpointStore }, orgId: string, livemode: boolean): Flow<WebhookTargets> {
  return livemode ? yield* deps.webhookEndpoints.enabled(orgId) : [];
}

/**
 * Queues a change's events for every target that subscribes to them: one outbox row per
 * (event, endpoint), in the change's transaction, so they are delivered if and only if the
 * change commits.
 */
export function* queueDeliveries(
  deps: { outbox: CoreDeps["outbox"] },
  orgId: string,
  endpoints: WebhookTargets,
  events: readonly { id: string; type: string }[],
  now: number,
): Flow<void> {
  if (endpoints.length === 0 || events.length === 0) return;
  const jobs = events.flatMap((event) =>
    endpoints.filter((endpoint) => subscribes(endpoint.enabledEvents, event.type)).map((endpoint) => ({ org_id: orgId, endpoint_id: endpoint.id, event_id: event.id })),
  );
  yield* deps.outbox.addMany(orgId, "webhooks", "webhook.deliver", jobs, now);
}
