import { formatMicros } from "../../../shared/clock.ts";
import { html, type SafeHtml } from "../html.ts";
import { csrfField, notice, page, table, when, type Notice } from "../layout.ts";
import type { SessionView, UserView } from "../admin-area.store.ts";

export interface ShownInvite {
  email: string;
  url: string;
  expiresAt: number;
}

function inviteBox(invite: ShownInvite | null | undefined): SafeHtml | null {
  if (!invite) return null;
  return html`<section class="secret" aria-labelledby="invite-title">
<h2 id="invite-title">Invite link for ${invite.email}</h2>
<p class="warning"><strong>Send this link to them now: it will not be shown again.</strong> It works once, until ${formatMicros(invite.expiresAt).slice(0, 16).replace("T", " ")} UTC.</p>
<div class="secret-value">
  <code id="invite-url" data-testid="invite-url">${invite.url}</code>
  <button type="button" class="copy" data-copy="invite-url" hidden>Copy</button>
</div>
</section>`;
}

function roleSelect(id: string, role: string) {
  return html`<select id="${id}" name="role">
<option value="member"${role === "member" ? html` selected` : ""}>Member (CSM or other assignee)</option>
<option value="admin"${role === "admin" ? html` selected` : ""}>Administrator</option>
</select>`;
}

function userRow(user: UserView): SafeHtml {
  const access = user.role !== "admin" ? "—" : user.hasPassword ? "Can sign in" : "Invited";
  return html`<tr>
<td>${user.name}</td>
<td>${user.email}</td>
<td>${user.role === "admin" ? "Administrator" : "Member"}</td>
<td>${user.slackUserId ?? "—"}</td>
<td>${access}</td>
<td><code>${user.id}</code></td>
<td><a href="/admin/users/${user.id}" aria-label="Edit ${user.name}">Edit</a></td>
</tr>`;
}

export function usersPage(session: SessionView, users: UserView[], options: { notice?: Notice | null; invite?: ShownInvite | null; form?: Record<string, string> } = {}) {
  const form = options.form ?? {};
  return page(
    session,
    "/admin/users",
    "Users",
    html`${notice(options.notice)}${inviteBox(options.invite)}
<section aria-labelledby="users-title">
<h2 id="users-title">People of this workspace</h2>
<p class="muted">An onboarding names a user by id (for example its <code>csm_id</code>); launch messages and reminders go to their Slack user id. Administrators sign in here.</p>
${table("Users", ["Name", "E-mail", "Role", "Slack user id", "Admin access", "Id", ""], users.map(userRow), "No users yet.")}
</section>
<section aria-labelledby="add-title">
<h2 id="add-title">Add a user</h2>
<form method="post" action="/admin/users" class="stack">
  ${csrfField(session)}
  <div class="field"><label for="user-name">Name</label><input id="user-name" name="name" required maxlength="200" value="${form.name ?? ""}"></div>
  <div class="field"><label for="user-email">E-mail</label><input id="user-email" name="email" type="email" required maxlength="254" value="${form.email ?? ""}"></div>
  <div class="field"><label for="user-role">Role</label>${roleSelect("user-role", form.role ?? "member")}
    <p class="hint">An administrator gets a one-time link to set a password.</p></div>
  <div class="field"><label for="user-slack">Slack user id (optional)</label><input id="user-slack" name="slack_user_id" maxlength="32" pattern="[UW][A-Z0-9]{2,}" value="${form.slack_user_id ?? ""}" aria-describedby="slack-hint">
    <p id="slack-hint" class="hint">Like U0123ABCD.</p></div>
  <button type="submit">Add user</button>
</form>
</section>`,
  );
}

export function userPage(session: SessionView, user: UserView, options: { notice?: Notice | null; invite?: ShownInvite | null } = {}) {
  const self = user.id === session.userId;
  return page(
    session,
    "/admin/users",
    `User ${user.name}`,
    html`${notice(options.notice)}${inviteBox(options.invite)}
<p><a href="/admin/users">← All users</a></p>
<p>${user.email} · added ${when(user.createdAt)} · <code>${user.id}</code></p>
<section aria-labelledby="edit-title">
<h2 id="edit-title">Change</h2>
<form method="post" action="/admin/users/${user.id}" class="stack">
  ${csrfField(session)}
  <div class="field"><label for="edit-name">Name</label><input id="edit-name" name="name" required maxlength="200" value="${user.name}"></div>
  <div class="field"><label for="edit-role">Role</label>${roleSelect("edit-role", user.role)}</div>
  <div class="field"><label for="edit-slack">Slack user id (optional)</label><input id="edit-slack" name="slack_user_id" maxlength="32" value="${user.slackUserId ?? ""}"></div>
  <button type="submit">Save</button>
</form>
</section>
${
  user.role === "admin"
    ? html`<section aria-labelledby="invite-section">
<h2 id="invite-section">Sign-in link</h2>
<p>${user.hasPassword ? "Issues a one-time link to set a new password (the current one keeps working until then)." : "Issues a new invite link; earlier links stop working."}</p>
<form method="post" action="/admin/users/${user.id}/invite">${csrfField(session)}<button type="submit" class="button-secondary">New invite link</button></form>
</section>`
    : null
}
${
  self
    ? null
    : html`<section aria-labelledby="remove-title">
<h2 id="remove-title">Remove</h2>
<p>Removes ${user.name} from the workspace; their sessions end at once.</p>
<form method="post" action="/admin/users/${user.id}/remove" class="actions">
  ${csrfField(session)}
  <label class="choice"><input type="checkbox" name="confirm" value="yes" required> Yes, remove ${user.name}</label>
  <button type="submit" class="button-danger">Remove user</button>
</form>
</section>`
}`,
  );
}
