import { formatMicros } from "../../../shared/clock.ts";
import type { WebhookAttemptRow, WebhookEndpointRow } from "../../../shared/db/schema.ts";
import { EVENT_TYPES } from "../../events/events.schema.ts";
import { html, type SafeHtml } from "../html.ts";
import { csrfField, notice, page, pager, secretPanel, table, when, type Notice } from "../layout.ts";
import type { SessionView } from "../admin-area.store.ts";

const PATH = "/admin/webhooks";
const endpointPath = (id: string) => `${PATH}/${encodeURIComponent(id)}`;
const eventsOf = (row: WebhookEndpointRow) => (JSON.parse(row.enabledEvents) as string[]).join(", ");

/** The secret of a new or rotated endpoint, shown once (only a sealed copy is kept). */
export interface ShownSecret {
  url: string;
  secret: string;
  rotated: boolean;
}

function secretSection(shown: ShownSecret): SafeHtml {
  const overlap = shown.rotated ? " The previous secret keeps signing beside it for 24 hours, so your receiver can switch without losing a delivery." : "";
  return secretPanel(
    "webhook-secret",
    shown.rotated ? "The endpoint's new signing secret" : "Signing secret of the new endpoint",
    html`<p>For <code>${shown.url}</code>.</p>
<p class="warning"><strong>Copy it now: it will not be shown again.</strong>${overlap}</p>`,
    shown.secret,
  );
}

function status(row: Pick<WebhookEndpointRow, "status" | "disabledReason">): SafeHtml {
  return row.status === "enabled"
    ? html`<span class="badge badge-ok">Enabled</span>`
    : html`<span class="badge badge-off">Disabled</span>${row.disabledReason ? html`<br><span class="muted">${row.disabledReason}</span>` : ""}`;
}

export interface EndpointForm {
  url: string;
  description: string;
  events: string[];
}

/** Every event, or a choice of types grouped by resource. */
function eventsFieldset(chosen: readonly string[]): SafeHtml {
  const all = chosen.length === 0 || chosen.includes("*");
  const families = [...new Set(EVENT_TYPES.map((t) => t.split(".")[0]!))];
  return html`<fieldset class="field events">
<legend>Events</legend>
<label class="choice"><input type="checkbox" name="events" value="*"${all ? html` checked` : ""}> Every event, including types added later</label>
${families.map(
  (family) => html`<fieldset class="event-family"><legend>${family}</legend>
${EVENT_TYPES.filter((t) => t.startsWith(`${family}.`)).map(
  (type) => html`<label class="choice"><input type="checkbox" name="events" value="${type}"${!all && chosen.includes(type) ? html` checked` : ""}> <code>${type}</code></label>`,
)}</fieldset>`,
)}
<p class="hint">“Every event” wins over single types.</p>
</fieldset>`;
}

export function webhooksPage(
  session: SessionView,
  endpoints: WebhookEndpointRow[],
  options: { nonce: string; notice?: Notice | null; shown?: ShownSecret | null; form?: EndpointForm },
) {
  const form = options.form ?? { url: "", description: "", events: ["*"] };
  return page(
    session,
    PATH,
    "Webhooks",
    html`${notice(options.notice)}${options.shown ? secretSection(options.shown) : null}
<p class="muted">Each change of a customer, contact or onboarding is POSTed to the endpoints that subscribe to its type, signed (Standard Webhooks) and retried for three days. Test keys' changes are never sent.</p>
<section aria-labelledby="endpoints-title">
<h2 id="endpoints-title">Endpoints of this workspace</h2>
${table(
  "Webhook endpoints",
  ["URL", "Events", "Description", "Status", "Created"],
  endpoints.map(
    (e) => html`<tr><td><a href="${endpointPath(e.id)}"><code>${e.url}</code></a></td><td>${eventsOf(e)}</td><td>${e.description ?? "—"}</td><td>${status(e)}</td><td>${when(e.createdAt)}</td></tr>`,
  ),
  "No endpoints yet.",
)}
</section>
<section aria-labelledby="create-title">
<h2 id="create-title">Add an endpoint</h2>
<form method="post" action="${PATH}" class="stack">
  ${csrfField(session)}
  <input type="hidden" name="nonce" value="${options.nonce}">
  <div class="field">
    <label for="endpoint-url">URL</label>
    <input id="endpoint-url" name="url" type="url" required maxlength="2048" value="${form.url}" aria-describedby="endpoint-url-hint" placeholder="https://example.com/webhooks/onboarding">
    <p id="endpoint-url-hint" class="hint">https only; addresses inside private networks are refused.</p>
  </div>
  <div class="field">
    <label for="endpoint-description">Description (optional)</label>
    <input id="endpoint-description" name="description" maxlength="500" value="${form.description}">
  </div>
  ${eventsFieldset(form.events)}
  <button type="submit">Add endpoint</button>
</form>
</section>`,
  );
}

function attemptRow(a: WebhookAttemptRow): SafeHtml {
  const outcome =
    a.statusCode === null
      ? html`<span class="badge badge-failed">no answer</span>`
      : html`<span class="badge ${a.statusCode >= 200 && a.statusCode < 300 ? "badge-sent" : "badge-failed"}">${a.statusCode}</span>`;
  return html`<tr><td>${when(a.createdAt)}</td><td><code>${a.eventId}</code></td><td class="num">${a.attempt}</td><td>${outcome}</td>
<td class="num">${Math.round(a.durationMs)} ms</td><td>${a.error ?? "—"}${a.responseExcerpt ? html`<br><code class="excerpt">${a.responseExcerpt}</code>` : ""}</td><td>${when(a.nextAttemptAt)}</td></tr>`;
}

/** `datetime-local` wants `YYYY-MM-DDTHH:MM` (read as UTC here). */
export const minuteOf = (micros: number) => formatMicros(micros).slice(0, 16);

export function endpointPage(
  session: SessionView,
  endpoint: WebhookEndpointRow,
  attempts: WebhookAttemptRow[],
  options: { nonce: string; next: string | null; since: string; continueFrom: string | null; notice?: Notice | null; shown?: ShownSecret | null },
) {
  const path = endpointPath(endpoint.id);
  const enabled = endpoint.status === "enabled";
  return page(
    session,
    PATH,
    "Webhook endpoint",
    html`${notice(options.notice)}${options.shown ? secretSection(options.shown) : null}
<p><a href="${PATH}">All endpoints</a></p>
<dl class="facts">
  <dt>URL</dt><dd><code>${endpoint.url}</code></dd>
  <dt>Events</dt><dd>${eventsOf(endpoint)}</dd>
  <dt>Description</dt><dd>${endpoint.description ?? "—"}</dd>
  <dt>Status</dt><dd data-testid="endpoint-status">${status(endpoint)}</dd>
  <dt>Failing since</dt><dd>${when(endpoint.failingSince)}</dd>
  <dt>Id</dt><dd><code>${endpoint.id}</code></dd>
</dl>
<section aria-labelledby="actions-title">
<h2 id="actions-title">Actions</h2>
<div class="actions">
  <form method="post" action="${path}/status">${csrfField(session)}<input type="hidden" name="status" value="${enabled ? "disabled" : "enabled"}"><button type="submit" class="button-secondary">${enabled ? "Disable" : "Enable"}</button></form>
  <form method="post" action="${path}/ping">${csrfField(session)}<button type="submit" class="button-secondary">Send a test event</button></form>
  <form method="post" action="${path}/rotate">${csrfField(session)}<input type="hidden" name="nonce" value="${options.nonce}"><button type="submit" class="button-secondary">Rotate secret</button></form>
  <form method="post" action="${path}/delete">${csrfField(session)}<button type="submit" class="button-danger">Delete…</button></form>
</div>
<form method="post" action="${path}/recover" class="inline-form recover">
  ${csrfField(session)}
  <div class="field">
    <label for="recover-since">Send again every event not delivered since (UTC)</label>
    <input id="recover-since" name="since" type="datetime-local" required value="${options.since}" aria-describedby="recover-hint">
    <p id="recover-hint" class="hint">Failed deliveries and the events of a time the endpoint was disabled, oldest first, up to 1,000 at a time.</p>
  </div>
  <button type="submit" class="button-secondary">Recover</button>
</form>
${
  options.continueFrom
    ? html`<form method="post" action="${path}/recover" class="actions">${csrfField(session)}<input type="hidden" name="since" value="${options.continueFrom}"><button type="submit">Recover the next events (from ${options.continueFrom})</button></form>`
    : null
}
</section>
<section aria-labelledby="attempts-title">
<h2 id="attempts-title">Recent attempts</h2>
${table("Delivery attempts", ["At", "Event", "Try", "Answer", "Took", "Error or answer excerpt", "Next try"], attempts.map(attemptRow), "No attempts yet.")}
${pager(path, {}, options.next)}
</section>`,
  );
}

export function deleteConfirmPage(session: SessionView, endpoint: WebhookEndpointRow) {
  const path = endpointPath(endpoint.id);
  return page(
    session,
    PATH,
    "Delete this endpoint?",
    html`<p>Deleting <code>${endpoint.url}</code> is final: nothing more is sent to it, and deliveries still due are dropped.</p>
<form method="post" action="${path}/delete" class="actions">
  ${csrfField(session)}
  <input type="hidden" name="confirm" value="yes">
  <button type="submit" class="button-danger">Delete endpoint</button>
  <a href="${path}">Cancel</a>
</form>`,
  );
}
