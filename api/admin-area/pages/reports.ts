import { html } from "../html.ts";
import { notice, page, pager, table, when, type Notice } from "../layout.ts";
import { auditActor, AUDIT_ACTIONS, auditTarget, auditText, DELIVERY_KINDS, deliveryOnboarding, deliveryReason, deliveryTarget, labelled, type People } from "./report-words.ts";
import type { ActivityView, AuditView, DeliveryView, KeyView, SessionView } from "../admin-area.store.ts";

export const DELIVERY_STATUSES = ["sending", "sent", "skipped", "failed"] as const;

export function deliveriesPage(
  session: SessionView,
  rows: DeliveryView[],
  people: People,
  filter: { onboarding: string; status: string },
  next: string | null,
  options: { notice?: Notice | null } = {},
) {
  return page(
    session,
    "/admin/deliveries",
    "Deliveries",
    html`${notice(options.notice)}
<p class="muted">Every launch and reminder message the worker sent, skipped or failed, newest first.</p>
<form method="get" action="/admin/deliveries" class="inline-form">
  <div class="field"><label for="f-onboarding">Onboarding (id or number)</label><input id="f-onboarding" name="onboarding" maxlength="64" value="${filter.onboarding}"></div>
  <div class="field"><label for="f-status">Status</label><select id="f-status" name="status">
    <option value="">Any</option>
    ${DELIVERY_STATUSES.map((s) => html`<option value="${s}"${filter.status === s ? html` selected` : ""}>${s}</option>`)}
  </select></div>
  <button type="submit" class="button-secondary">Filter</button>
</form>
${table(
  "Deliveries",
  ["Created", "Kind", "Onboarding", "Target", "Status", "Reason", "Attempts", "Updated"],
  rows.map(
    (d) => html`<tr><td>${when(d.createdAt)}</td><td>${labelled(DELIVERY_KINDS, d.kind)}</td><td>${deliveryOnboarding(d)}</td><td>${deliveryTarget(d, people)}</td>
<td><span class="badge badge-${d.status}">${d.status}</span></td><td>${deliveryReason(d.detail, people)}</td><td class="num">${d.attempts}</td><td>${when(d.updatedAt)}</td></tr>`,
  ),
  "No deliveries match.",
)}
${pager("/admin/deliveries", { onboarding: filter.onboarding, status: filter.status }, next)}`,
  );
}

export function activityPage(session: SessionView, rows: ActivityView[], keys: KeyView[], filter: { key: string }, next: string | null) {
  const names = new Map(keys.map((k) => [k.id, `${k.name} (${k.prefix}…)`]));
  return page(
    session,
    "/admin/activity",
    "Activity",
    html`<p class="muted">One entry per authenticated API call, newest first; a key's refusals (429) within one second are one entry, with how many there were.</p>
<form method="get" action="/admin/activity" class="inline-form">
  <div class="field"><label for="f-key">API key</label><select id="f-key" name="key">
    <option value="">All keys</option>
    ${keys.map((k) => html`<option value="${k.id}"${filter.key === k.id ? html` selected` : ""}>${k.name} (${k.prefix}…)</option>`)}
  </select></div>
  <button type="submit" class="button-secondary">Filter</button>
</form>
${table(
  "Activity",
  ["At", "Key", "Method", "Route", "Status", "Calls", "Address", "Duration"],
  rows.map(
    (a) => html`<tr><td>${when(a.at)}</td><td>${names.get(a.keyId) ?? a.actor}</td><td>${a.method}</td><td><code>${a.route}</code></td><td class="num">${a.status}</td>
<td class="num" data-testid="repeat-count">${a.repeatCount}</td><td>${a.address ?? "—"}</td><td class="num">${a.durationMs.toFixed(1)} ms</td></tr>`,
  ),
  "No activity matches.",
)}
${pager("/admin/activity", { key: filter.key }, next)}`,
  );
}

export function auditPage(session: SessionView, rows: AuditView[], people: People, next: string | null) {
  return page(
    session,
    "/admin/audit",
    "Audit log",
    html`<p class="muted">Every administrator action in this workspace, and every change the operator made with the command line (<strong>operator (CLI)</strong>, from the account and host it ran on), newest first.</p>
${table(
  "Audit log",
  ["When", "Who", "What", "Target", "Detail", "From"],
  rows.map(
    (e) =>
      html`<tr><td>${when(e.at)}</td><td>${auditActor(e, people)}</td><td>${labelled(AUDIT_ACTIONS, e.action)}</td><td>${auditTarget(e, people)}</td><td>${auditText(e.detail)}</td><td>${auditText(e.address)}</td></tr>`,
  ),
  "No entries yet.",
)}
${pager("/admin/audit", {}, next)}`,
  );
}
