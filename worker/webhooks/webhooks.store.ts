import type { Flow } from "../../shared/db/flow.ts";
import { createEventStore } from "../../shared/db/events.store.ts";
import { decoder, type Sql } from "../../shared/db/sql.ts";
import { createWebhookEndpointStore } from "../../shared/db/webhook-endpoints.store.ts";

/**
 * What a delivery reads and writes: the endpoint and the event (through their own stores, the
 * API's), the attempts log and the endpoint's health.
 */
export function createWebhookDeliveryStore(sql: Sql) {
  const endpoints = createWebhookEndpointStore(sql);
  const feed = createEventStore(sql);
  const insertAttempt = sql.statement(
    `INSERT INTO webhook_attempts (id, org_id, endpoint_id, event_id, attempt, status_code, duration_ms, error, response_excerpt, created_at, next_attempt_at)
     VALUES ($id, $orgId, $endpointId, $eventId, $attempt, $statusCode, $durationMs, $error, $responseExcerpt, $createdAt, $nextAttemptAt)`,
  );
  const succeeded = sql.statement(`UPDATE webhook_endpoints SET failing_since = NULL WHERE id = $id AND failing_since IS NOT NULL`);
  // The first failure since the last success is kept: five days from it disable the endpoint.
  const failing = sql.statement<{ since: number }>(
    `UPDATE webhook_endpoints SET failing_since = coalesce(failing_since, $now) WHERE id = $id RETURNING failing_since AS "since"`,
    { decode: decoder({ since: "number" }) },
  );
  const disable = sql.statement(
    `UPDATE webhook_endpoints SET status = 'disabled', disabled_reason = $reason, updated_at = $now WHERE id = $id AND status = 'enabled'`,
  );

  return {
    endpoint: endpoints.byId,
    event: feed.byId,
    attempt: (row: {
      id: string;
      orgId: string;
      endpointId: string;
      eventId: string;
      attempt: number;
      statusCode: number | null;
      durationMs: number;
      error: string | null;
      responseExcerpt: string | null;
      createdAt: number;
      nextAttemptAt: number | null;
    }) => insertAttempt.run(row),
    succeeded: (id: string) => succeeded.run({ id }),
    /** Marks the endpoint failing (unless it already is) and answers since when. */
    *failing(id: string, now: number): Flow<number> {
      return (yield* failing.get({ id, now }))?.since ?? now;
    },
    disable: (id: string, reason: string, now: number) => disable.run({ id, reason, now }),
  };
}

export type WebhookDeliveryStore = ReturnType<typeof createWebhookDeliveryStore>;
