import { count } from "drizzle-orm";
import type { Db } from "../../shared/db/client.ts";
import { deliveries } from "../../shared/db/schema.ts";

/** What /metrics reads from the database. */
export function createMetricsStore(db: Db) {
  const byKindAndStatus = db
    .select({ kind: deliveries.kind, status: deliveries.status, n: count() })
    .from(deliveries)
    .groupBy(deliveries.kind, deliveries.status)
    .prepare();
  return {
    deliveriesByKindAndStatus: () => byKindAndStatus.all(),
  };
}
