import { html } from "../html.ts";
import { notice, publicPage, type Notice } from "../layout.ts";
import { PASSWORD_MAX, PASSWORD_MIN } from "../admin-area.service.ts";

export function loginPage(options: { notice?: Notice | null; email?: string } = {}) {
  return publicPage(
    "Sign in",
    html`${notice(options.notice)}
<form method="post" action="/admin/login" class="stack">
  <div class="field">
    <label for="email">E-mail</label>
    <input id="email" name="email" type="email" autocomplete="username" required maxlength="254" value="${options.email ?? ""}">
  </div>
  <div class="field">
    <label for="password">Password</label>
    <input id="password" name="password" type="password" autocomplete="current-password" required maxlength="${PASSWORD_MAX}">
  </div>
  <button type="submit">Sign in</button>
</form>
<p class="muted">Workspace administrators sign in here. Lost your password? Ask another administrator of your workspace, or the operator, for a new link.</p>`,
  );
}

export function invitePage(email: string, error: string | null) {
  return publicPage(
    "Set your password",
    html`${notice(error ? { kind: "error", text: error } : null)}
<p>Choose a password for <strong>${email}</strong>. This link works once.</p>
<form method="post" class="stack">
  <input type="text" name="username" value="${email}" autocomplete="username" hidden>
  <div class="field">
    <label for="new-password">New password</label>
    <input id="new-password" name="password" type="password" autocomplete="new-password" required minlength="${PASSWORD_MIN}" maxlength="${PASSWORD_MAX}" aria-describedby="password-hint">
    <p id="password-hint" class="hint">${PASSWORD_MIN} to ${PASSWORD_MAX} characters.</p>
  </div>
  <button type="submit">Set password</button>
</form>`,
  );
}

export function deadLinkPage() {
  return publicPage(
    "This link no longer works",
    html`<p>The link has expired (links last 24 hours) or was already used. Ask an administrator of your workspace, or the operator, for a new one.</p>
<p><a href="/admin/login">Go to sign-in</a></p>`,
  );
}

export function refusedPage(message: string) {
  return publicPage("Request refused", html`<p>${message}</p><p><a href="/admin">Back to the admin area</a></p>`);
}

/** Any other address a browser asks for under /admin: a page, not the API's JSON 404. */
export function notFoundPage() {
  return publicPage("Page not found", html`<p>There is no page at this address.</p><p><a href="/admin">The admin area</a> · <a href="/api/v1/docs">The API reference</a></p>`);
}
