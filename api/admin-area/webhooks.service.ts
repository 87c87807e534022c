import type { Clock } from "../../shared/clock.ts";
import type { Database } from "../../shared/db/database.ts";
import { run } from "../../shared/db/flow.ts";
import type { ApiStores } from "../stores.ts";
import {
  createEndpoint,
  deleteEndpoint,
  pingEndpoint,
  recoverEvents,
  rotateSecret,
  updateEndpoint,
  type WebhookDeps,
} from "../webhooks/webhooks.service.ts";
import { auditWriter, type AdminActor } from "./admin-area.service.ts";

export interface AdminWebhooksDeps {
  database: Database;
  clock: Clock;
  store: ApiStores["adminArea"];
  /** The same dependencies the API's webhook routes are given: one service behind both. */
  webhooks: WebhookDeps;
}

/**
 * Webhook endpoints as an administrator manages them: the API's own service functions, each
 * run with its audit entry in one transaction (the service's transaction nests in it and is part of it).
 * The admin area belongs to the live workspace, so its ping is a live ping.
 */
export function createAdminWebhooks({ database, clock, store, webhooks }: AdminWebhooksDeps) {
  const audit = auditWriter(store, clock);
  const orgOf = (actor: AdminActor) => actor.session.orgId;

  return {
    create(actor: AdminActor, input: { url: string; enabledEvents: string[]; description: string | null }) {
      return run(
        database.transaction(function* () {
          const created = yield* createEndpoint(webhooks, orgOf(actor), { url: input.url, enabled_events: input.enabledEvents, description: input.description ?? undefined });
          yield* audit(actor, "webhook_endpoint.create", created.url, `events ${created.enabled_events.join(", ")}`);
          return created;
        }),
      );
    },

    setStatus(actor: AdminActor, id: string, status: "enabled" | "disabled") {
      return run(
        database.transaction(function* () {
          const updated = yield* updateEndpoint(webhooks, orgOf(actor), id, { status });
          yield* audit(actor, status === "enabled" ? "webhook_endpoint.enable" : "webhook_endpoint.disable", updated.url);
          return updated;
        }),
      );
    },

    rotate(actor: AdminActor, id: string) {
      return run(
        database.transaction(function* () {
          const rotated = yield* rotateSecret(webhooks, orgOf(actor), id);
          yield* audit(actor, "webhook_endpoint.rotate_secret", rotated.url, "the previous secret signs for 24 more hours");
          return rotated;
        }),
      );
    },

    ping(actor: AdminActor, id: string) {
      return run(pingEndpoint(webhooks, orgOf(actor), true, id));
    },

    /** The audit entry names the endpoint by its URL, as every other endpoint action's does. */
    recover(actor: AdminActor, endpoint: { id: string; url: string }, since: string) {
      return run(
        database.transaction(function* () {
          const recovery = yield* recoverEvents(webhooks, orgOf(actor), endpoint.id, since);
          yield* audit(actor, "webhook_endpoint.recover", endpoint.url, `since ${since}: ${recovery.queued} queued${recovery.has_more ? ", more remain" : ""}`);
          return recovery;
        }),
      );
    },

    remove(actor: AdminActor, id: string, url: string) {
      return run(
        database.transaction(function* () {
          yield* deleteEndpoint(webhooks, orgOf(actor), id);
          yield* audit(actor, "webhook_endpoint.delete", url);
        }),
      );
    },
  };
}

export type AdminWebhooks = ReturnType<typeof createAdminWebhooks>;
