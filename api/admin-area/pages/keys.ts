import { html, type SafeHtml } from "../html.ts";
import { csrfField, notice, page, secretPanel, table, when, type Notice } from "../layout.ts";
import type { KeyView, SessionView } from "../admin-area.store.ts";
import { OPERATOR_ACTOR } from "../../../shared/audit.store.ts";

export interface CreatedKey {
  name: string;
  mode: string;
  key: string;
}

function keyRow(session: SessionView, key: KeyView): SafeHtml {
  const status = key.revokedAt === null ? html`<span class="badge badge-ok">Active</span>` : html`<span class="badge badge-off">Revoked ${when(key.revokedAt)}</span>`;
  const action =
    key.revokedAt === null
      ? html`<form method="post" action="/admin/api-keys/${key.id}/revoke">${csrfField(session)}<button type="submit" class="button-danger" aria-label="Revoke ${key.name}">Revoke</button></form>`
      : "";
  return html`<tr>
<td>${key.name}</td>
<td><code>${key.prefix}…</code></td>
<td>${key.mode}</td>
<td>${key.tier}</td>
<td>${when(key.createdAt)}</td>
<td>${key.createdBy ?? OPERATOR_ACTOR}</td>
<td>${when(key.lastUsedAt)}${key.lastUsedIp ? html`<br><span class="muted">${key.lastUsedIp}</span>` : ""}</td>
<td class="num">${key.requestCount}</td>
<td>${status}</td>
<td>${action}</td>
</tr>`;
}

export function keysPage(session: SessionView, keys: KeyView[], options: { created?: CreatedKey | null; notice?: Notice | null; nonce: string; form?: { name: string; mode: string } }) {
  const created = options.created
    ? secretPanel(
        "new-api-key",
        html`Your new ${options.created.mode} key “${options.created.name}”`,
        html`<p class="warning"><strong>Copy it now: it will not be shown again.</strong> Only a hash is kept; if you lose it, revoke it and create another.</p>`,
        options.created.key,
      )
    : null;
  const mode = options.form?.mode ?? "live";
  return page(
    session,
    "/admin/api-keys",
    "API keys",
    html`${notice(options.notice)}${created}
<section aria-labelledby="create-title">
<h2 id="create-title">Create a key</h2>
<form method="post" action="/admin/api-keys" class="inline-form">
  ${csrfField(session)}
  <input type="hidden" name="nonce" value="${options.nonce}">
  <div class="field">
    <label for="key-name">Name</label>
    <input id="key-name" name="name" required maxlength="100" value="${options.form?.name ?? ""}" aria-describedby="key-name-hint">
    <p id="key-name-hint" class="hint">What uses it, e.g. crm-sync.</p>
  </div>
  <fieldset class="field">
    <legend>Mode</legend>
    <label class="choice"><input type="radio" name="mode" value="live"${mode === "live" ? html` checked` : ""}> Live</label>
    <label class="choice"><input type="radio" name="mode" value="test"${mode === "test" ? html` checked` : ""}> Test (never sends Slack or e-mail)</label>
  </fieldset>
  <button type="submit">Create key</button>
</form>
</section>
<section aria-labelledby="keys-title">
<h2 id="keys-title">Keys of this workspace</h2>
<p class="muted">The rate-limit tier is set by the operator.</p>
${table(
  "API keys",
  ["Name", "Prefix", "Mode", "Tier", "Created", "Created by", "Last used", "Requests", "Status", ""],
  keys.map((k) => keyRow(session, k)),
  "No keys yet.",
)}
</section>`,
  );
}

export function revokeConfirmPage(session: SessionView, key: KeyView) {
  return page(
    session,
    "/admin/api-keys",
    "Revoke this key?",
    html`<p>Revoking <strong>${key.name}</strong> (<code>${key.prefix}…</code>, ${key.mode}) is final: its very next request will be refused with <code>api_key_revoked</code>.</p>
<form method="post" action="/admin/api-keys/${key.id}/revoke" class="actions">
  ${csrfField(session)}
  <input type="hidden" name="confirm" value="yes">
  <button type="submit" class="button-danger">Revoke key</button>
  <a href="/admin/api-keys">Cancel</a>
</form>`,
  );
}
