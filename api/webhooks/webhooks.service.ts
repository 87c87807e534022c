import { formatMicros, parseDateTimeMicros } from "../../shared/clock.ts";
import type { Flow } from "../../shared/db/flow.ts";
import type { WebhookAttemptRow, WebhookEndpointRow } from "../../shared/db/schema.ts";
import { DomainError } from "../../shared/errors.ts";
import { newId } from "../../shared/ids.ts";
import { encryptSecret } from "../../shared/secrets.ts";
import { checkUrl, UrlNotAllowed, type OutboundRules } from "../../shared/webhooks/outbound-rules.ts";
import { newWebhookSecret, ROTATION_OVERLAP_MICROS } from "../../shared/webhooks/signature.ts";
import type { CoreDeps } from "../deps.ts";
import { typesOf } from "../events/events.service.ts";
import { cursorMicros, PAGE_LIMIT_DEFAULT, toPage, type ListPage } from "../http/pagination.ts";
import {
  MAX_ENDPOINTS,
  type CreateWebhookEndpointInput,
  type UpdateWebhookEndpointInput,
  type WebhookAttemptResource,
  type WebhookEndpointResource,
} from "./webhooks.schema.ts";
import { subscribes } from "./webhooks.fanout.ts";
import type { WebhookEndpointStore } from "../../shared/db/webhook-endpoints.store.ts";

/** What the webhook services need: the endpoints' store, the outbox, and the rules and key for URLs and secrets. */
export type WebhookDeps = Pick<CoreDeps, "transaction" | "clock" | "outbox"> & {
  webhookEndpoints: WebhookEndpointStore;
  webhookSettings: { rules: OutboundRules; secretKey: string | null };
};

/** Events a recovery queues per call; the answer says where the next call goes on. */
const RECOVER_LIMIT = 1000;
const RECOVER_SLICE = 500;

export function toWebhookEndpointResource(row: WebhookEndpointRow): WebhookEndpointResource {
  return {
    object: "webhook_endpoint",
    id: row.id,
    url: row.url,
    enabled_events: JSON.parse(row.enabledEvents) as string[],
    description: row.description,
    status: row.status,
    disabled_reason: row.disabledReason,
    created_at: formatMicros(row.createdAt),
    updated_at: formatMicros(row.updatedAt),
  };
}

const toAttemptResource = (row: WebhookAttemptRow): WebhookAttemptResource => ({
  object: "webhook_attempt",
  id: row.id,
  endpoint_id: row.endpointId,
  event_id: row.eventId,
  attempt: row.attempt,
  status_code: row.statusCode,
  duration_ms: row.durationMs,
  error: row.error,
  response_excerpt: row.responseExcerpt,
  created_at: formatMicros(row.createdAt),
  next_attempt_at: row.nextAttemptAt === null ? null : formatMicros(row.nextAttemptAt),
});

const endpointNotFound = (id: string) => new DomainError("webhook_endpoint_not_found", `No such webhook endpoint: '${id}'.`);

/**
 * The URL's form and any literal address, when an endpoint is saved. A host name is resolved,
 * and each of its addresses checked, when a delivery is sent (worker/webhooks/post.ts): a name
 * can point anywhere at any moment, so only the check at send time protects anything.
 */
function allowedUrl(deps: WebhookDeps, url: string): string {
  try {
    return checkUrl(url, deps.webhookSettings.rules).toString();
  } catch (error) {
    if (error instanceof UrlNotAllowed) throw new DomainError("url_not_allowed", error.message, "url");
    throw error;
  }
}

/** The list as given, each entry checked (types, families or `*`). */
function enabledEvents(list: readonly string[]): string[] {
  typesOf(list.join(","), "enabled_events");
  return [...list];
}

function sealed(deps: WebhookDeps, secret: string): string {
  if (!deps.webhookSettings.secretKey) {
    throw new DomainError("service_unavailable", "This installation has no SECRET_KEY, so webhook secrets cannot be stored; its operator must set one.");
  }
  return encryptSecret(deps.webhookSettings.secretKey, secret);
}

function* findEndpoint(deps: Pick<WebhookDeps, "webhookEndpoints">, orgId: string, id: string): Flow<WebhookEndpointRow> {
  const row = yield* deps.webhookEndpoints.byId(orgId, id);
  if (!row) throw endpointNotFound(id);
  return row;
}

export function* createEndpoint(deps: WebhookDeps, orgId: string, input: CreateWebhookEndpointInput): Flow<WebhookEndpointResource & { secret: string }> {
  const url = allowedUrl(deps, input.url);
  const events = enabledEvents(input.enabled_events);
  const secret = newWebhookSecret();
  const sealedSecret = sealed(deps, secret);
  return yield* deps.transaction(function* () {
    if ((yield* deps.webhookEndpoints.count(orgId)) >= MAX_ENDPOINTS) {
      throw new DomainError("webhook_endpoint_limit", `A workspace may have at most ${MAX_ENDPOINTS} webhook endpoints; delete one first.`);
    }
    const now = deps.clock.nowMicros();
    const row: WebhookEndpointRow = {
      id: newId("we"),
      orgId,
      url,
      description: input.description ?? null,
      enabledEvents: JSON.stringify(events),
      status: "enabled",
      disabledReason: null,
      secret: sealedSecret,
      previousSecret: null,
      previousSecretExpiresAt: null,
      failingSince: null,
      createdAt: now,
      updatedAt: now,
    };
    yield* deps.webhookEndpoints.insert(row);
    return { ...toWebhookEndpointResource(row), secret };
  });
}

export function* listEndpoints(deps: Pick<WebhookDeps, "webhookEndpoints">, orgId: string, query: { limit?: number; cursor?: string }): Flow<ListPage<WebhookEndpointResource>> {
  const limit = query.limit ?? PAGE_LIMIT_DEFAULT;
  const rows = yield* deps.webhookEndpoints.page(orgId, cursorMicros(query.cursor), limit + 1);
  return toPage(rows, limit, toWebhookEndpointResource);
}

export function* getEndpoint(deps: WebhookDeps, orgId: string, id: string): Flow<WebhookEndpointResource> {
  return toWebhookEndpointResource(yield* findEndpoint(deps, orgId, id));
}

export function* updateEndpoint(deps: WebhookDeps, orgId: string, id: string, input: UpdateWebhookEndpointInput): Flow<WebhookEndpointResource> {
  const url = input.url === undefined ? undefined : allowedUrl(deps, input.url);
  const events = input.enabled_events === undefined ? undefined : enabledEvents(input.enabled_events);
  return yield* deps.transaction(function* () {
    const current = yield* findEndpoint(deps, orgId, id);
    const next: WebhookEndpointRow = {
      ...current,
      ...(url === undefined ? {} : { url }),
      ...(events === undefined ? {} : { enabledEvents: JSON.stringify(events) }),
      ...(input.description === undefined ? {} : { description: input.description }),
      ...(input.status === undefined ? {} : { status: input.status }),
    };
    // Enabled again (by hand): the reason it was disabled and its failing streak are history.
    if (input.status === "enabled") Object.assign(next, { disabledReason: null, failingSince: null });
    if (JSON.stringify(next) === JSON.stringify(current)) return toWebhookEndpointResource(current);
    next.updatedAt = deps.clock.nowMicros();
    yield* deps.webhookEndpoints.update(next);
    return toWebhookEndpointResource(next);
  });
}

export function* deleteEndpoint(deps: WebhookDeps, orgId: string, id: string): Flow<{ object: "webhook_endpoint"; id: string; deleted: true }> {
  return yield* deps.transaction(function* () {
    if ((yield* deps.webhookEndpoints.remove(orgId, id)) === 0) throw endpointNotFound(id);
    return { object: "webhook_endpoint" as const, id, deleted: true as const };
  });
}

/** A new secret; the previous one keeps signing beside it for 24 hours, so receivers can switch without losing a delivery. */
export function* rotateSecret(deps: WebhookDeps, orgId: string, id: string): Flow<WebhookEndpointResource & { secret: string }> {
  const secret = newWebhookSecret();
  const sealedSecret = sealed(deps, secret);
  return yield* deps.transaction(function* () {
    const now = deps.clock.nowMicros();
    const rotated = yield* deps.webhookEndpoints.rotate(orgId, id, sealedSecret, now + ROTATION_OVERLAP_MICROS, now);
    if (!rotated) throw endpointNotFound(id);
    return { ...toWebhookEndpointResource(rotated), secret };
  });
}

/** Queues a `ping` event to the endpoint (tried once; its attempt appears in the log). Test keys send nothing. */
export function* pingEndpoint(deps: WebhookDeps, orgId: string, livemode: boolean, id: string): Flow<{ object: "webhook_ping"; endpoint_id: string; event_id: string }> {
  if (!livemode) throw new DomainError("test_mode_outbound", "Test keys never send anything outside the service; ping with a live key.");
  return yield* deps.transaction(function* () {
    yield* findEndpoint(deps, orgId, id);
    const now = deps.clock.nowMicros();
    const eventId = newId("evt");
    yield* deps.outbox.add(orgId, "webhooks", "webhook.ping", { org_id: orgId, endpoint_id: id, event_id: eventId, at: now }, now);
    return { object: "webhook_ping" as const, endpoint_id: id, event_id: eventId };
  });
}

export function* listAttempts(deps: Pick<WebhookDeps, "webhookEndpoints">, orgId: string, id: string, query: { limit?: number; cursor?: string }): Flow<ListPage<WebhookAttemptResource>> {
  yield* findEndpoint(deps, orgId, id);
  const limit = query.limit ?? PAGE_LIMIT_DEFAULT;
  const rows = yield* deps.webhookEndpoints.attempts(orgId, id, cursorMicros(query.cursor), limit + 1);
  return toPage(rows, limit, toAttemptResource);
}

/**
 * Queues again, oldest first, every live event from `since` on that the endpoint subscribes to
 * and has not received (no 2xx, no try still due): failed deliveries, and events of a time it
 * was disabled. At most RECOVER_LIMIT per call, never splitting one instant's events, so
 * `next_since` (the instant after the last one queued) misses nothing and repeats nothing.
 */
export function* recoverEvents(
  deps: WebhookDeps,
  orgId: string,
  id: string,
  since: string,
): Flow<{ object: "webhook_recovery"; endpoint_id: string; queued: number; has_more: boolean; next_since: string | null }> {
  const from = parseDateTimeMicros(since)!;
  return yield* deps.transaction(function* () {
    const endpoint = yield* findEndpoint(deps, orgId, id);
    const subscribed = JSON.parse(endpoint.enabledEvents) as string[];
    const now = deps.clock.nowMicros();
    const chosen: { id: string; createdAt: number }[] = [];
    let after = 0;
    let hasMore = false;
    scan: for (;;) {
      const rows = yield* deps.webhookEndpoints.undelivered(orgId, id, from, after, now, RECOVER_SLICE);
      for (const row of rows) {
        if (!subscribes(subscribed, row.type)) continue;
        const last = chosen[chosen.length - 1];
        if (chosen.length >= RECOVER_LIMIT && last && row.createdAt !== last.createdAt) {
          hasMore = true;
          break scan;
        }
        chosen.push(row);
      }
      if (rows.length < RECOVER_SLICE) break;
      after = rows[rows.length - 1]!.position;
    }
    yield* deps.outbox.addMany(orgId, "webhooks", "webhook.deliver", chosen.map((event) => ({ org_id: orgId, endpoint_id: id, event_id: event.id })), now);
    const last = chosen[chosen.length - 1];
    return {
      object: "webhook_recovery" as const,
      endpoint_id: id,
      queued: chosen.length,
      has_more: hasMore,
      next_since: hasMore && last ? formatMicros(last.createdAt + 1) : null,
    };
  });
}
