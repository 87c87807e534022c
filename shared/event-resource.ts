import { formatMicros } from "./clock.ts";
import type { EventRow } from "./db/schema.ts";

/**
 * An event as the API returns it (`GET /api/v1/events/{id}`) and as a webhook delivers it:
 * written once here, because the API (api/events) and the worker's deliveries
 * (worker/webhooks) both render it. api/events/events.schema.ts holds its schema.
 */
export function eventResourceOf(row: EventRow) {
  return {
    object: "event" as const,
    id: row.id,
    type: row.type,
    created_at: formatMicros(row.createdAt),
    livemode: row.livemode,
    actor: { type: row.actorType, name: row.actorName },
    request: row.requestId === null ? null : { id: row.requestId, idempotency_key: row.idempotencyKey },
    data: JSON.parse(row.data) as Record<string, unknown>,
  };
}
