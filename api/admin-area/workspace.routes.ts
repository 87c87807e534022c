import type { UserRole } from "../../shared/db/schema.ts";
import { attempt } from "./admin-area.service.ts";
import type { AdminAreaContext, AdminAreaRouter } from "./context.ts";
import { html } from "./html.ts";
import { htmlResponse, redirect } from "./http.ts";
import { refusedPage } from "./pages/auth.ts";
import { keysPage, revokeConfirmPage } from "./pages/keys.ts";
import { activityPage, auditPage, deliveriesPage, DELIVERY_STATUSES } from "./pages/reports.ts";
import { peopleIndex } from "./pages/report-words.ts";
import { settingsPage } from "./pages/settings.ts";
import { userPage, usersPage } from "./pages/users.ts";

const PAGE_SIZE = 50;

const notFound = (what: string) => htmlResponse(refusedPage(`No such ${what} in this workspace.`), 404);
const query = (request: Request) => new URL(request.url).searchParams;
const text = (form: URLSearchParams, name: string) => (form.get(name) ?? "").trim();

/** `<micros>_<id>`: the last row of a page, for keyset pagination over (time, id). */
function parseCursor(value: string | null): { at: number; id: string } | null {
  const m = value ? /^(\d{1,17})_(.{1,80})$/.exec(value) : null;
  return m ? { at: Number(m[1]), id: m[2]! } : null;
}

function paged<T>(rows: T[], cursorOf: (row: T) => string): { rows: T[]; next: string | null } {
  if (rows.length <= PAGE_SIZE) return { rows, next: null };
  const page = rows.slice(0, PAGE_SIZE);
  return { rows: page, next: cursorOf(page[page.length - 1]!) };
}

const role = (value: string | null): UserRole => (value === "admin" ? "admin" : "member");

/** Pages and forms of one workspace; every read and change is scoped by the session's workspace. */
export function workspaceRoutes(router: AdminAreaRouter, { store, service, guards, nonces }: AdminAreaContext) {
  const { newNonce } = nonces;
  // --- API keys -------------------------------------------------------------------------
  router.get(
    "/admin/api-keys",
    guards.page(async (session, ctx) => {
      const revokedId = query(ctx.request).get("revoked");
      const revoked = revokedId ? await store.key(session.orgId, revokedId) : null;
      const notice = revoked ? { kind: "ok" as const, text: html`Key “${revoked.name}” revoked: its next request will be refused.` } : null;
      return htmlResponse(keysPage(session, await store.keys(session.orgId), { nonce: newNonce(), notice }));
    }),
  );
  router.post(
    "/admin/api-keys",
    guards.action(async (actor, form) => {
      const orgId = actor.session.orgId;
      // A resubmitted form (reload, back button) must not make a second key or show one again.
      if (!(await nonces.firstSubmission(form))) return redirect("/admin/api-keys");
      const input = { name: text(form, "name"), mode: form.get("mode") === "test" ? ("test" as const) : ("live" as const) };
      const result = await attempt(() => service.createKey(actor, input));
      if (!result.ok) {
        return htmlResponse(keysPage(actor.session, await store.keys(orgId), { nonce: newNonce(), notice: { kind: "error", text: result.message }, form: input }), 400);
      }
      const { row, key } = result.value;
      return htmlResponse(keysPage(actor.session, await store.keys(orgId), { nonce: newNonce(), created: { name: row.name, mode: row.mode, key } }));
    }),
  );
  router.post(
    "/admin/api-keys/:id/revoke",
    guards.action(async (actor, form, ctx) => {
      const key = await store.key(actor.session.orgId, ctx.params.id ?? "");
      if (!key) return notFound("key");
      if (form.get("confirm") !== "yes") return htmlResponse(revokeConfirmPage(actor.session, key));
      await service.revokeKey(actor, key.id);
      return redirect(`/admin/api-keys?revoked=${encodeURIComponent(key.id)}`);
    }),
  );

  // --- Users ----------------------------------------------------------------------------
  const USER_NOTICES: Record<string, string> = { added: "User added.", removed: "User removed.", saved: "Changes saved." };
  const noticeFrom = (request: Request) => {
    const key = [...query(request).keys()].find((k) => k in USER_NOTICES);
    return key ? { kind: "ok" as const, text: USER_NOTICES[key]! } : null;
  };
  const userInput = (form: URLSearchParams) => ({ name: text(form, "name"), role: role(form.get("role")), slackUserId: text(form, "slack_user_id") || null });

  router.get("/admin/users", guards.page(async (session, ctx) => htmlResponse(usersPage(session, await store.users(session.orgId), { notice: noticeFrom(ctx.request) }))));
  router.post(
    "/admin/users",
    guards.action(async (actor, form) => {
      const input = { ...userInput(form), email: text(form, "email") };
      const result = await attempt(() => service.addUser(actor, input));
      if (!result.ok) {
        const values = { name: input.name, email: input.email, role: input.role, slack_user_id: input.slackUserId ?? "" };
        return htmlResponse(usersPage(actor.session, await store.users(actor.session.orgId), { notice: { kind: "error", text: result.message }, form: values }), 400);
      }
      const { user, invite } = result.value;
      if (!invite) return redirect("/admin/users?added");
      return htmlResponse(
        usersPage(actor.session, await store.users(actor.session.orgId), {
          notice: { kind: "ok", text: html`${user.name} added as an administrator.` },
          invite: { email: user.email, url: invite.url, expiresAt: invite.expiresAt },
        }),
      );
    }),
  );
  router.get(
    "/admin/users/:id",
    guards.page(async (session, ctx) => {
      const user = await store.user(session.orgId, ctx.params.id ?? "");
      return user ? htmlResponse(userPage(session, user, { notice: noticeFrom(ctx.request) })) : notFound("user");
    }),
  );
  router.post(
    "/admin/users/:id",
    guards.action(async (actor, form, ctx) => {
      const user = await store.user(actor.session.orgId, ctx.params.id ?? "");
      if (!user) return notFound("user");
      const result = await attempt(() => service.updateUser(actor, user.id, userInput(form)));
      if (!result.ok) return htmlResponse(userPage(actor.session, user, { notice: { kind: "error", text: result.message } }), 400);
      return redirect(`/admin/users/${encodeURIComponent(user.id)}?saved`);
    }),
  );
  router.post(
    "/admin/users/:id/remove",
    guards.action(async (actor, form, ctx) => {
      const user = await store.user(actor.session.orgId, ctx.params.id ?? "");
      if (!user) return notFound("user");
      if (form.get("confirm") !== "yes") {
        return htmlResponse(userPage(actor.session, user, { notice: { kind: "error", text: "Tick the box to confirm the removal." } }), 400);
      }
      const result = await attempt(() => service.removeUser(actor, user.id));
      if (!result.ok) return htmlResponse(userPage(actor.session, user, { notice: { kind: "error", text: result.message } }), 400);
      return redirect("/admin/users?removed");
    }),
  );
  router.post(
    "/admin/users/:id/invite",
    guards.action(async (actor, _form, ctx) => {
      const user = await store.user(actor.session.orgId, ctx.params.id ?? "");
      if (!user) return notFound("user");
      const result = await attempt(() => service.reissueInvite(actor, user.id));
      if (!result.ok) return htmlResponse(userPage(actor.session, user, { notice: { kind: "error", text: result.message } }), 400);
      const { invite } = result.value;
      return htmlResponse(userPage(actor.session, user, { invite: { email: user.email, url: invite.url, expiresAt: invite.expiresAt } }));
    }),
  );

  // --- Settings -------------------------------------------------------------------------
  router.get(
    "/admin/settings",
    guards.page(async (session, ctx) => {
      const org = (await store.organization(session.orgId))!;
      const saved = query(ctx.request).has("saved") ? { kind: "ok" as const, text: "Settings saved." } : null;
      return htmlResponse(settingsPage(session, org, { notice: saved }));
    }),
  );
  router.post(
    "/admin/settings",
    guards.action(async (actor, form) => {
      const token = text(form, "slack_token");
      const slackToken = form.get("clear_slack_token") === "yes" ? "" : token === "" ? undefined : token;
      const result =
        slackToken !== undefined && slackToken.length > 512
          ? { ok: false as const, message: "The Slack token is too long." }
          : await attempt(() => service.updateSettings(actor, { slackToken, launchRecap: form.get("launch_recap") === "on" }));
      if (!result.ok) return htmlResponse(settingsPage(actor.session, (await store.organization(actor.session.orgId))!, { notice: { kind: "error", text: result.message } }), 400);
      return redirect("/admin/settings?saved");
    }),
  );

  // --- What the service did -------------------------------------------------------------
  router.get(
    "/admin/deliveries",
    guards.page(async (session, ctx) => {
      const params = query(ctx.request);
      const onboarding = (params.get("onboarding") ?? "").trim().slice(0, 64);
      const statusParam = params.get("status") ?? "";
      const status = (DELIVERY_STATUSES as readonly string[]).includes(statusParam) ? statusParam : "";
      const onboardingId = onboarding === "" ? null : await store.onboardingId(session.orgId, onboarding);
      // The workspace's people, to name the CSMs deliveries went to (a workspace has tens, not thousands).
      const people = peopleIndex(await store.users(session.orgId));
      if (onboarding !== "" && onboardingId === null) {
        return htmlResponse(deliveriesPage(session, [], people, { onboarding, status }, null, { notice: { kind: "error", text: html`No onboarding “${onboarding}” in this workspace.` } }));
      }
      const rows = await store.deliveriesPage(session.orgId, { onboardingId, status: status || null }, parseCursor(params.get("before")), PAGE_SIZE + 1);
      const page = paged(rows, (d) => `${d.createdAt}_${d.id}`);
      return htmlResponse(deliveriesPage(session, page.rows, people, { onboarding, status }, page.next));
    }),
  );
  router.get(
    "/admin/activity",
    guards.page(async (session, ctx) => {
      const params = query(ctx.request);
      const keys = await store.keys(session.orgId);
      const keyParam = params.get("key") ?? "";
      const key = keys.some((k) => k.id === keyParam) ? keyParam : "";
      const rows = await store.activityPage(session.orgId, key || null, parseCursor(params.get("before")), PAGE_SIZE + 1);
      const page = paged(rows, (a) => `${a.at}_${a.requestId}`);
      return htmlResponse(activityPage(session, page.rows, keys, { key }, page.next));
    }),
  );
  router.get(
    "/admin/audit",
    guards.page(async (session, ctx) => {
      const before = query(ctx.request).get("before");
      const rows = await store.auditPage(session.orgId, before && /^\d{1,15}$/.test(before) ? Number(before) : null, PAGE_SIZE + 1);
      const page = paged(rows, (e) => String(e.id));
      return htmlResponse(auditPage(session, page.rows, peopleIndex(await store.users(session.orgId)), page.next));
    }),
  );
}
