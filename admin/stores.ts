import type { Database } from "../shared/db/database.ts";
import { createPhaseDurationStore } from "../shared/db/phase-durations.store.ts";
import { createWebhookEndpointStore } from "../shared/db/webhook-endpoints.store.ts";
import { createCustomerStore } from "../api/customers/customers.store.ts";
import { createReportsStore } from "./reports.store.ts";
import { createAuditStore } from "../shared/audit.store.ts";

const built = new WeakMap<Database, ReturnType<typeof build>>();
const build = (database: Database) => ({
  reports: createReportsStore(database.sql),
  webhookEndpoints: createWebhookEndpointStore(database.sql),
  phaseDurations: createPhaseDurationStore(database.sql),
  customers: createCustomerStore(database.sql),
  audit: createAuditStore(database.sql),
});

/** Every store the operator's command line uses (shared/workspaces.ts builds its own), once per open database. */
export function adminStores(database: Database) {
  let stores = built.get(database);
  if (!stores) built.set(database, (stores = build(database)));
  return stores;
}
