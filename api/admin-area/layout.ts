import { formatMicros } from "../../shared/clock.ts";
import { html, type Interpolation, type SafeHtml } from "./html.ts";
import type { SessionView } from "./admin-area.store.ts";

export const NAV = [
  { path: "/admin/overview", label: "Overview" },
  { path: "/admin/onboardings", label: "Onboardings" },
  { path: "/admin/sla", label: "SLA report" },
  { path: "/admin/api-keys", label: "API keys" },
  { path: "/admin/users", label: "Users" },
  { path: "/admin/settings", label: "Settings" },
  { path: "/admin/webhooks", label: "Webhooks" },
  { path: "/admin/deliveries", label: "Deliveries" },
  { path: "/admin/activity", label: "Activity" },
  { path: "/admin/audit", label: "Audit log" },
] as const;

/** `2026-11-22 10:15:30 UTC`, in a <time> element carrying the exact instant. */
export function when(micros: number | null): SafeHtml | string {
  if (micros === null) return "—";
  const iso = formatMicros(micros);
  return html`<time datetime="${iso}">${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC</time>`;
}

export interface Notice {
  kind: "ok" | "error";
  text: Interpolation;
}

export function notice(n: Notice | null | undefined): SafeHtml | null {
  if (!n) return null;
  return n.kind === "error"
    ? html`<div class="notice notice-error" role="alert">${n.text}</div>`
    : html`<div class="notice notice-ok" role="status">${n.text}</div>`;
}

/**
 * A secret on the one page that ever shows it (a new key, a webhook signing secret): a warning
 * frame, the value in a `<code>` the tests find by `testId`, and a copy button admin.js reveals.
 */
export function secretPanel(testId: string, title: Interpolation, body: Interpolation, value: string): SafeHtml {
  return html`<section class="secret" aria-labelledby="${testId}-title">
<h2 id="${testId}-title">${title}</h2>
${body}
<div class="secret-value">
  <code id="${testId}" data-testid="${testId}">${value}</code>
  <button type="button" class="copy" data-copy="${testId}" hidden>Copy</button>
</div>
</section>`;
}

/**
 * An id in a table cell, cut to fit its column (`…`) with the whole id in its tooltip and in
 * the page's text (find, copy and screen readers get all of it): a row of 26-character ids must
 * not push a table past a 1280-pixel screen.
 */
export const longId = (id: string): SafeHtml => html`<code class="id" title="${id}">${id}</code>`;

/** A hidden field with the session's CSRF token: every state-changing form carries one. */
export const csrfField = (session: SessionView) => html`<input type="hidden" name="_csrf" value="${session.csrfToken}">`;

function document(title: string, body: SafeHtml): SafeHtml {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Customer Onboarding admin</title>
<link rel="icon" href="/admin/assets/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/admin/assets/admin.css">
<script src="/admin/assets/admin.js" defer></script>
</head>
${body}
</html>`;
}

/** A page of a signed-in administrator: header with the workspace, navigation, sign-out. */
export function page(session: SessionView, current: string, title: string, content: Interpolation): SafeHtml {
  return document(
    title,
    html`<body>
<a class="skip" href="#main">Skip to content</a>
<header class="top">
  <div class="brand"><span class="workspace">${session.orgName}</span> <span class="muted">admin area</span></div>
  <form method="post" action="/admin/logout" class="signout">
    ${csrfField(session)}
    <span class="muted who">${session.email}</span>
    <button type="submit" class="button-secondary">Sign out</button>
  </form>
</header>
<nav aria-label="Admin sections"><ul>
${NAV.map((item) => html`<li><a href="${item.path}"${item.path === current ? html` aria-current="page"` : ""}>${item.label}</a></li>`)}
</ul></nav>
<main id="main">
<h1>${title}</h1>
${content}
</main>
</body>`,
  );
}

/** A page without a session: sign-in, set password, a dead link. */
export function publicPage(title: string, content: Interpolation): SafeHtml {
  return document(
    title,
    html`<body class="narrow">
<main id="main">
<h1>${title}</h1>
${content}
</main>
</body>`,
  );
}

/** A table inside a region that scrolls sideways on a narrow screen (and can be reached by keyboard). */
export function table(label: string, head: readonly string[], rows: readonly SafeHtml[], empty: string): SafeHtml {
  if (rows.length === 0) return html`<p class="empty">${empty}</p>`;
  return html`<div class="table-wrap" role="region" aria-label="${label}" tabindex="0">
<table>
<thead><tr>${head.map((h) => html`<th scope="col">${h}</th>`)}</tr></thead>
<tbody>${rows}</tbody>
</table>
</div>`;
}

/** "Older" link of a keyset-paginated list, keeping the filters. */
export function pager(path: string, params: Record<string, string | null>, cursor: string | null): SafeHtml | null {
  if (cursor === null) return null;
  const query = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v) query.set(k, v);
  query.set("before", cursor);
  return html`<p class="pager"><a href="${`${path}?${query}`}">Older entries</a></p>`;
}
