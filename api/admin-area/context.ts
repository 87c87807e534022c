import type { Clock } from "../../shared/clock.ts";
import type { Driven } from "../../shared/db/flow.ts";
import type { ApiStores } from "../stores.ts";
import type { AdminAreaService } from "./admin-area.service.ts";
import type { createGuards, Ctx } from "./http.ts";

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
  guards: ReturnType<typeof createGuards>;
  clock: Clock;
  newNonce: () => string;
}
