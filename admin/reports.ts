import { formatMicros } from "../shared/clock.ts";
import type { Db } from "../shared/db/client.ts";
import { findWorkspace, OperatorError } from "../shared/workspaces.ts";

/** `id`, or `display_id` when made only of digits, within one workspace. */
function resolveRef(db: Db, table: "customers" | "onboardings", orgId: string, ref: string): string {
  const column = /^\d+$/.test(ref) ? "display_id" : "id";
  const row = db.$client.query(`SELECT id FROM ${table} WHERE org_id = ? AND ${column} = ?`).get(orgId, ref) as { id: string } | null;
  if (!row) throw new OperatorError(`No ${table.slice(0, -1)} '${ref}' in this workspace.`);
  return row.id;
}

/** A customer's timeline, oldest first: what the worker recorded from phase changes. */
export function listTimeline(db: Db, workspaceSlug: string, customerRef: string) {
  const org = findWorkspace(db, workspaceSlug);
  const customerId = resolveRef(db, "customers", org.id, customerRef);
  const rows = db.$client
    .query("SELECT kind, onboarding_id, data, actor, at FROM timeline_events WHERE customer_id = ? ORDER BY at, id")
    .all(customerId) as { kind: string; onboarding_id: string; data: string; actor: string; at: number }[];
  return rows.map((r) => ({ object: "timeline_event", kind: r.kind, onboarding_id: r.onboarding_id, ...JSON.parse(r.data), actor: r.actor, at: formatMicros(r.at) }));
}

/** Every outbound effect with its outcome, newest first. */
export function listDeliveries(db: Db, workspaceSlug: string, onboardingRef?: string) {
  const org = findWorkspace(db, workspaceSlug);
  const onboardingId = onboardingRef === undefined ? null : resolveRef(db, "onboardings", org.id, onboardingRef);
  const rows = db.$client
    .query(
      `SELECT id, kind, onboarding_id, target, status, detail, attempts, created_at, updated_at FROM deliveries
       WHERE org_id = ? AND (? IS NULL OR onboarding_id = ?) ORDER BY created_at DESC`,
    )
    .all(org.id, onboardingId, onboardingId) as Record<string, string | number | null>[];
  return rows.map((r) => ({ object: "delivery", ...r, created_at: formatMicros(r.created_at as number), updated_at: formatMicros(r.updated_at as number) }));
}
