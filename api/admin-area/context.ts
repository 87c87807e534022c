import type { Clock } from "../../shared/clock.ts";
import type { Driven } from "../../shared/db/flow.ts";
import type { ApiStores } from "../stores.ts";
import type { WebhookEndpointStore } from "../../shared/db/webhook-endpoints.store.ts";
import type { AdminAreaService } from "./admin-area.service.ts";
import type { AdminWebhooks } from "./webhooks.service.ts";
import type { FormNonces } from "./form-nonces.ts";
import type { createGuards, Ctx } from "./http.ts";
import type { ServiceDeps } from "../features.ts";
import type { OnboardingPagesStore } from "./onboarding-pages.store.ts";

/** What the admin area's page modules are given by `adminArea` (admin-area.routes.ts), which mounts them. */
type Route = (ctx: Ctx) => Response | Promise<Response>;
export interface AdminAreaRouter {
  get(path: string, handler: Route): unknown;
  post(path: string, handler: Route): unknown;
}

export interface AdminAreaContext {
  /** The pages' reads and small writes, each a promise (pages are plain asynchronous code). */
  store: Driven<ApiStores["adminArea"]>;
  service: AdminAreaService;
  /** Webhook endpoints: the API's service (audited) and its store's reads. */
  webhooks: { service: AdminWebhooks; endpoints: Driven<WebhookEndpointStore> };
  /** The onboarding pages' reads, and the API's services they share (phase durations, the report). */
  onboardings: { pages: Driven<OnboardingPagesStore>; services: ServiceDeps };
  guards: ReturnType<typeof createGuards>;
  clock: Clock;
  /** One-time nonces of the forms that show a secret once. */
  nonces: FormNonces;
}
