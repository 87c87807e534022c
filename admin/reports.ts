import { formatMicros } from "../shared/clock.ts";
import type { Db } from "../shared/db/client.ts";
import { findWorkspace, OperatorError } from "../shared/workspaces.ts";
import { reportsStore as store } from "./reports.store.ts";

/** `id`, or `display_id` when made only of digits, within one workspace. */
function resolveRef(db: Db, table: "customers" | "onboardings", orgId: string, ref: string): string {
  const id = store.idByRef(db, table, orgId, ref);
  if (!id) throw new OperatorError(`No ${table.slice(0, -1)} '${ref}' in this workspace.`);
  return id;
}

/** A customer's timeline, oldest first: what the worker recorded from phase changes. */
export function listTimeline(db: Db, workspaceSlug: string, customerRef: string) {
  const org = findWorkspace(db, workspaceSlug);
  const customerId = resolveRef(db, "customers", org.id, customerRef);
  return store
    .timelineOf(db, customerId)
    .map((r) => ({ object: "timeline_event", kind: r.kind, onboarding_id: r.onboardingId, ...JSON.parse(r.data), actor: r.actor, at: formatMicros(r.at) }));
}

/** Every outbound effect with its outcome, newest first. */
export function listDeliveries(db: Db, workspaceSlug: string, onboardingRef?: string) {
  const org = findWorkspace(db, workspaceSlug);
  const onboardingId = onboardingRef === undefined ? null : resolveRef(db, "onboardings", org.id, onboardingRef);
  return store.deliveriesOf(db, org.id, onboardingId).map((r) => ({ object: "delivery", ...r, created_at: formatMicros(r.created_at), updated_at: formatMicros(r.updated_at) }));
}
