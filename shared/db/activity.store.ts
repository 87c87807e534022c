import type { ActivityEntry } from "../jobs/catalog.ts";
import type { Db } from "./client.ts";

/** An entry as the table's row (drizzle's column keys, also the statement's parameter names). */
export const activityRow = (e: ActivityEntry) => ({
  requestId: e.request_id,
  orgId: e.org_id,
  keyId: e.key_id,
  actor: e.actor,
  method: e.method,
  route: e.route,
  status: e.status,
  address: e.address,
  durationMs: e.duration_ms,
  at: e.at,
});

/**
 * Activity entries, keyed by request id: an entry written twice (a batch delivered again, a
 * write's entry that also reached a batch) is one row.
 */
export function createActivityStore(db: Db) {
  const insert = db.$client.prepare(
    `INSERT INTO activity_entries (request_id, org_id, key_id, actor, method, route, status, address, duration_ms, at)
     VALUES ($requestId, $orgId, $keyId, $actor, $method, $route, $status, $address, $durationMs, $at) ON CONFLICT(request_id) DO NOTHING`,
  );
  const totalChanges = db.$client.prepare<{ n: number }, []>("SELECT total_changes() AS n");
  return {
    /** Rows this connection has changed since it opened: equal before and after means nothing was written. */
    changeCount: (): number => totalChanges.get()!.n,
    insert(e: ActivityEntry): void {
      insert.run(activityRow(e));
    },
  };
}

