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

/**
 * `queueDeliveries` for the events of a batch of changes made together (api/http/together.ts),
 * of several workspaces: each workspace's live events, for its endpoints (`endpoints`, read for
 * the batch's live workspaces), in workspace order.
 */
export function* queueDeliveriesAcross(
  deps: { outbox: CoreDeps["outbox"] },
  endpoints: ReadonlyMap<string, WebhookTargets>,
  events: readonly { orgId: string; id: string; type: string; livemode: boolean }[],
  now: number,
): Flow<void> {
  const byWorkspace = new Map<string, { id: string; type: string }[]>();
  for (const event of events) {
    if (!event.livemode || !endpoints.has(event.orgId)) continue;
    const queued = byWorkspace.get(event.orgId);
    if (queued) queued.push(event);
    else byWorkspace.set(event.orgId, [event]);
  }
  for (const orgId of [...byWorkspace.keys()].sort()) yield* queueDeliveries(deps, orgId, endpoints.get(orgId)!, byWorkspace.get(orgId)!, now);
}
