import { defineFeature } from "../feature.ts";
import { webhookRoutes } from "./webhooks.routes.ts";
import { createWebhookEndpointStore } from "../../shared/db/webhook-endpoints.store.ts";

export const webhooksFeature = defineFeature({
  tag: { name: "Webhooks", description: "Events POSTed to your endpoints as they happen: signed (Standard Webhooks), retried, at least once." },
  stores: (sql) => ({ webhookEndpoints: createWebhookEndpointStore(sql) }),
  routes: webhookRoutes,
});
