import { formatMicros, parseDateTimeMicros } from "../shared/clock.ts";
import type { Database } from "../shared/db/database.ts";
import type { Flow } from "../shared/db/flow.ts";
import { findWorkspace, OperatorError } from "../shared/workspaces.ts";
import { DomainError } from "../shared/errors.ts";
import { listAttempts, listEndpoints } from "../api/webhooks/webhooks.service.ts";
import { phaseDurationReport } from "../api/phase-durations/phase-durations.service.ts";
import { adminStores } from "./stores.ts";

/*
 * The command line's reports, as flows (shared/db/flow.ts) over either engine: run them with
 * `await run(listTimeline(database, …))`.
 */

/** `id`, or `display_id` when made only of digits, within one workspace. */
function* resolveRef(database: Database, table: "customers" | "onboardings", orgId: string, ref: string): Flow<string> {
  const id = yield* adminStores(database).reports.idByRef(table, orgId, ref);
  if (!id) throw new OperatorError(`No ${table.slice(0, -1)} '${ref}' in this workspace.`);
  return id;
}

/** A customer's timeline, oldest first: its onboardings' phase changes (their transition records). */
export function* listTimeline(database: Database, workspaceSlug: string, customerRef: string) {
  const org = yield* findWorkspace(database, workspaceSlug);
  const customerId = yield* resolveRef(database, "customers", org.id, customerRef);
  const rows = yield* adminStores(database).reports.timelineOf(org.id, customerId);
  return rows.map((r) => ({
    object: "timeline_event",
    kind: r.kind,
    onboarding_id: r.onboardingId,
    ...(r.data === null ? { from: r.fromPhase, to: r.toPhase } : JSON.parse(r.data)),
    actor: r.actor,
    at: formatMicros(r.at),
  }));
}

/** Every outbound effect with its outcome, newest first. */
export function* listDeliveries(database: Database, workspaceSlug: string, onboardingRef?: string) {
  const org = yield* findWorkspace(database, workspaceSlug);
  const onboardingId = onboardingRef === undefined ? null : yield* resolveRef(database, "onboardings", org.id, onboardingRef);
  const rows = yield* adminStores(database).reports.deliveriesOf(org.id, onboardingId);
  return rows.map((r) => ({ object: "delivery", ...r, created_at: formatMicros(r.created_at), updated_at: formatMicros(r.updated_at) }));
}

/** A workspace's activity entries, newest first, at most `limit`; a key's refusals within one second are one entry. */
export function* listActivity(database: Database, workspaceSlug: string, limit: number) {
  const org = yield* findWorkspace(database, workspaceSlug);
  const rows = yield* adminStores(database).reports.activityOf(org.id, limit);
  return rows.map((r) => ({ object: "activity_entry", ...r, at: formatMicros(r.at) }));
}

/** A workspace's webhook endpoints (never their secrets), newest first: the API's own listing. */
export function* listWebhookEndpoints(database: Database, workspaceSlug: string) {
  const org = yield* findWorkspace(database, workspaceSlug);
  return (yield* listEndpoints(adminStores(database), org.id, { limit: 100 })).data;
}

/** One endpoint's delivery attempts, newest first, at most `limit` (the API's listing). */
export function* listWebhookAttempts(database: Database, workspaceSlug: string, endpointId: string, limit: number) {
  const org = yield* findWorkspace(database, workspaceSlug);
  try {
    return (yield* listAttempts(adminStores(database), org.id, endpointId, { limit })).data;
  } catch (error) {
    if (error instanceof DomainError) throw new OperatorError(error.message);
    throw error;
  }
}

/** The phase-duration report of a workspace (or one customer), as `GET /api/v1/reports/phase_durations` answers it. */
export function* reportPhaseDurations(database: Database, workspaceSlug: string, query: { from?: string; to?: string; customer_id?: string }) {
  const org = yield* findWorkspace(database, workspaceSlug);
  for (const [flag, value] of [["--from", query.from], ["--to", query.to]] as const) {
    if (value !== undefined && parseDateTimeMicros(value) === null) throw new OperatorError(`${flag} must be an RFC 3339 date-time such as 2026-10-01T00:00:00Z.`);
  }
  try {
    return yield* phaseDurationReport(adminStores(database), { orgId: org.id }, query);
  } catch (error) {
    if (error instanceof DomainError) throw new OperatorError(error.message.replace("'to'", "--to").replace("'from'", "--from"));
    throw error;
  }
}
