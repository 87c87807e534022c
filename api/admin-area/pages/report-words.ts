import { OPERATOR_ACTOR } from "../../../shared/audit.store.ts";
import type { AuditView, DeliveryView, UserView } from "../admin-area.store.ts";
import { html, type SafeHtml } from "../html.ts";
import { longId } from "../layout.ts";
import { onboardingPath } from "./onboarding-words.ts";

/*
 * What the deliveries and audit pages say about a row, in words: the people, customers and
 * endpoints a row names by id are shown by name (with the id in a tooltip), the actions and
 * kinds as sentences with their code beside, and a worker's reason that tells an operator to
 * run a command says where the administrator does it instead.
 */

export const DELIVERY_KINDS: Record<string, string> = {
  "launch.slack_dm": "Launch message to the CSM (Slack)",
  "launch.calendar_entry": "Launch calendar entry",
  "launch.recap_email": "Launch recap e-mail draft",
  "reminder.email": "Reminder to the customer (e-mail)",
  "reminder.slack": "Reminder to the CSM (Slack)",
};

export const AUDIT_ACTIONS: Record<string, string> = {
  "session.sign_in": "Signed in",
  "session.sign_in_failed": "Sign-in failed (wrong password)",
  "session.sign_out": "Signed out",
  "user.password_set": "Set their password",
  "user.add": "Added a user",
  "user.invite": "Issued an invite link",
  "user.update": "Changed a user",
  "user.remove": "Removed a user",
  "api_key.create": "Created an API key",
  "api_key.revoke": "Revoked an API key",
  "settings.update": "Changed the settings",
  "workspace.create": "Created the workspace",
  "webhook_endpoint.create": "Added a webhook endpoint",
  "webhook_endpoint.enable": "Enabled a webhook endpoint",
  "webhook_endpoint.disable": "Disabled a webhook endpoint",
  "webhook_endpoint.rotate_secret": "Rotated a webhook endpoint's secret",
  "webhook_endpoint.recover": "Sent missed events again",
  "webhook_endpoint.delete": "Deleted a webhook endpoint",
};

/** A sentence, and the code the log keeps (for searching and for the command line's users). */
export const labelled = (labels: Record<string, string>, code: string): SafeHtml =>
  labels[code] ? html`${labels[code]}<br><code class="muted">${code}</code>` : html`<code>${code}</code>`;

/** The workspace's people, found by id, Slack user id or e-mail. */
export function peopleIndex(users: readonly UserView[]) {
  const byId = new Map(users.map((u) => [u.id, u]));
  const bySlack = new Map(users.filter((u) => u.slackUserId).map((u) => [u.slackUserId!, u]));
  const byEmail = new Map(users.map((u) => [u.email, u]));
  return { byId, bySlack, byEmail };
}
export type People = ReturnType<typeof peopleIndex>;

/**
 * Free text from a row (an address, a URL, a reason). One with an unbroken run longer than a
 * column is wide may break anywhere, so it never widens its table; any other wraps between words
 * as usual (breaking anywhere would also cut `channel_not_found` where room was left).
 */
const UNBROKEN = /\S{25,}/;
const wrapClass = (value: string) => (UNBROKEN.test(value) ? "wrap-anywhere" : null);
const text = (value: string, muted = false) => {
  const classes = [muted ? "muted" : null, wrapClass(value)].filter(Boolean).join(" ");
  return classes ? html`<span class="${classes}">${value}</span>` : value;
};

const person = (user: UserView, detail: string | null = user.email) => {
  const name = wrapClass(user.name) ? html`<a href="/admin/users/${user.id}" class="wrap-anywhere">${user.name}</a>` : html`<a href="/admin/users/${user.id}">${user.name}</a>`;
  return detail ? html`${name} ${text(detail, true)}` : name;
};

/** The onboarding as people know it: its number and its customer. */
export function deliveryOnboarding(d: DeliveryView): SafeHtml {
  const label = d.onboardingDisplayId === null ? longId(d.onboardingId) : html`#${d.onboardingDisplayId}`;
  return html`<a href="${onboardingPath(d.onboardingId)}">${label}</a>${d.customerName ? html` <span class="muted">${d.customerName}</span>` : ""}`;
}

/** Whom the delivery went to: a user (by id or Slack id), a customer, an address. */
export function deliveryTarget(d: DeliveryView, people: People): SafeHtml | string {
  const target = d.target;
  if (target === null) return "—";
  const user = people.byId.get(target) ?? people.bySlack.get(target);
  if (user) return person(user, user.slackUserId === target && user.id !== target ? `Slack ${target}` : user.email);
  if (d.targetCustomerName !== null) return html`${d.targetCustomerName} <span class="muted">customer #${d.targetCustomerDisplayId}</span>`;
  if (target.includes("@")) return text(target);
  return html`${longId(target)} <span class="muted">(no one here by that id)</span>`;
}

/**
 * The worker's reason, with a link to the page that fixes it. The worker writes the same text
 * for the command line (`admin workspace update --slack-token-file`), which is no advice on a page.
 */
export function deliveryReason(detail: string | null, people: People): SafeHtml | string {
  if (detail === null) return "—";
  if (detail.startsWith("no Slack token")) {
    return html`No Slack token: set the workspace's on the <a href="/admin/settings">Settings</a> page (or the operator sets <code>SLACK_BOT_TOKEN</code> for every workspace).`;
  }
  if (detail.startsWith("the workspace's Slack token cannot be decrypted")) {
    return html`The workspace's Slack token cannot be read with this installation's key: set it again on the <a href="/admin/settings">Settings</a> page.`;
  }
  const noSlackId = /^CSM (.*) \((usr_[0-9A-Za-z]+)\) has no Slack user id$/.exec(detail);
  const csm = noSlackId ? people.byId.get(noSlackId[2]!) : undefined;
  if (csm) return html`The CSM ${person(csm, null)} has no Slack user id: add it on <a href="/admin/users/${csm.id}">their page</a>.`;
  return text(detail);
}

/** Who acted: an administrator by name (their address as recorded), or the operator's command line. */
export function auditActor(e: AuditView, people: People): SafeHtml | string {
  if (e.actorUserId === null) return e.actor === OPERATOR_ACTOR ? html`<strong>${OPERATOR_ACTOR}</strong>` : text(e.actor);
  const user = people.byId.get(e.actorUserId);
  return user ? person(user, e.actor) : html`${text(e.actor)} <span class="muted">(no longer a user)</span>`;
}

/** What the action was done to: a user by name, an endpoint by URL, else as recorded. */
export function auditTarget(e: AuditView, people: People): SafeHtml | string {
  if (e.target === null) return "—";
  if (e.action.startsWith("user.")) {
    const user = people.byEmail.get(e.target);
    if (user) return person(user);
  }
  return text(e.targetEndpointUrl ?? e.target);
}

/** A recorded detail or address, or a dash. */
export const auditText = (value: string | null) => (value === null ? "—" : text(value));
