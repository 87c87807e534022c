import type { Flow } from "./flow.ts";
import { webhookAttempts, webhookEndpoints, type WebhookEndpointRow } from "./schema.ts";
import { decoder, jsonList, rowOf, type Sql } from "./sql.ts";

/** An enabled endpoint as a change's events need it: what it subscribes to, parsed. */
const target = (row: { id: string; enabledEvents: string }) => ({ id: row.id, enabledEvents: JSON.parse(row.enabledEvents) as string[] });

/** Webhook endpoints and their attempts log, as the API reads and changes them. */
export function createWebhookEndpointStore(sql: Sql) {
  const endpoint = rowOf(webhookEndpoints);
  const attempt = rowOf(webhookAttempts);
  const insert = sql.statement(
    `INSERT INTO webhook_endpoints (id, org_id, url, description, enabled_events, status, disabled_reason, secret, previous_secret, previous_secret_expires_at, failing_since, created_at, updated_at)
     VALUES ($id, $orgId, $url, $description, $enabledEvents, $status, $disabledReason, $secret, $previousSecret, $previousSecretExpiresAt, $failingSince, $createdAt, $updatedAt)`,
  );
  const count = sql.statement<{ n: number }>(`SELECT CAST(count(*) AS INTEGER) AS n FROM webhook_endpoints WHERE org_id = $orgId`, { decode: decoder({ n: "number" }) });
  const byId = sql.statement(`SELECT ${endpoint.columns} FROM webhook_endpoints WHERE org_id = $orgId AND id = $id`, { decode: endpoint.decode });
  const page = sql.statement(
    `SELECT ${endpoint.columns} FROM webhook_endpoints WHERE org_id = $orgId AND created_at < $before ORDER BY created_at DESC LIMIT $limit`,
    { decode: endpoint.decode },
  );
  const enabled = sql.statement<{ id: string; enabledEvents: string }>(
    `SELECT id, enabled_events AS "enabledEvents" FROM webhook_endpoints WHERE org_id = $orgId AND status = 'enabled'`,
  );
  const enabledIn = sql.statement<{ orgId: string; id: string; enabledEvents: string }>(
    `SELECT org_id AS "orgId", id, enabled_events AS "enabledEvents" FROM webhook_endpoints
     WHERE status = 'enabled' AND ${sql.oneOf("org_id", "orgs")}`,
  );
  const update = sql.statement(
    `UPDATE webhook_endpoints SET url = $url, description = $description, enabled_events = $enabledEvents, status = $status,
       disabled_reason = $disabledReason, failing_since = $failingSince, updated_at = $updatedAt WHERE org_id = $orgId AND id = $id`,
  );
  const rotate = sql.statement(
    `UPDATE webhook_endpoints SET previous_secret = secret, previous_secret_expires_at = $previousExpiresAt, secret = $secret, updated_at = $now
     WHERE org_id = $orgId AND id = $id RETURNING ${endpoint.columns}`,
    { decode: endpoint.decode },
  );
  const remove = sql.statement(`DELETE FROM webhook_endpoints WHERE org_id = $orgId AND id = $id`);
  const attempts = sql.statement(
    `SELECT ${attempt.columns} FROM webhook_attempts WHERE endpoint_id = $endpointId AND org_id = $orgId AND created_at < $before
     ORDER BY created_at DESC LIMIT $limit`,
    { decode: attempt.decode },
  );
  // Events of the workspace from `since` on, live ones only (test keys deliver nothing), that this
  // endpoint has neither received (a 2xx) nor has a try of still due; oldest first.
  const undelivered = sql.statement<{ id: string; type: string; position: number; createdAt: number }>(
    `SELECT e.id, e.type, e.position, e.created_at AS "createdAt" FROM events e
     WHERE e.org_id = $orgId AND e.position > $afterPosition AND e.created_at >= $since AND e.livemode = TRUE
       AND NOT EXISTS (SELECT 1 FROM webhook_attempts a WHERE a.endpoint_id = $endpointId AND a.event_id = e.id
                       AND ((a.status_code >= 200 AND a.status_code < 300) OR a.next_attempt_at > $now))
     ORDER BY e.position LIMIT $limit`,
    { decode: decoder({ position: "number", createdAt: "number" }) },
  );

  return {
    insert: (row: WebhookEndpointRow) => insert.run(row),
    *count(orgId: string): Flow<number> {
      return (yield* count.get({ orgId }))?.n ?? 0;
    },
    byId: (orgId: string, id: string) => byId.get({ orgId, id }),
    page: (orgId: string, before: number, limit: number) => page.all({ orgId, before, limit }),
    /** The workspace's enabled endpoints and what each subscribes to: read by every change that writes events. */
    *enabled(orgId: string): Flow<{ id: string; enabledEvents: string[] }[]> {
      const rows = yield* enabled.all({ orgId });
      return rows.map(target);
    },
    /** `enabled` for several workspaces at once (a batch of changes made together): each workspace's, by its id (none: absent). */
    *enabledIn(orgIds: readonly string[]): Flow<Map<string, { id: string; enabledEvents: string[] }[]>> {
      const byOrg = new Map<string, { id: string; enabledEvents: string[] }[]>();
      if (orgIds.length === 0) return byOrg;
      for (const row of yield* enabledIn.all({ orgs: jsonList(orgIds) })) {
        const list = byOrg.get(row.orgId) ?? [];
        list.push(target(row));
        byOrg.set(row.orgId, list);
      }
      return byOrg;
    },
    update: (row: WebhookEndpointRow) => update.run(row),
    /** The endpoint with its new secret, the old one kept until `previousExpiresAt`; undefined when there is no such endpoint. */
    rotate: (orgId: string, id: string, secret: string, previousExpiresAt: number, now: number) => rotate.get({ orgId, id, secret, previousExpiresAt, now }),
    /** Rows deleted: 0 when there was no such endpoint. */
    remove: (orgId: string, id: string) => remove.run({ orgId, id }),
    attempts: (orgId: string, endpointId: string, before: number, limit: number) => attempts.all({ orgId, endpointId, before, limit }),
    undelivered: (orgId: string, endpointId: string, since: number, afterPosition: number, now: number, limit: number) =>
      undelivered.all({ orgId, endpointId, since, afterPosition, now, limit }),
  };
}

export type WebhookEndpointStore = ReturnType<typeof createWebhookEndpointStore>;
