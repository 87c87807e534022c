import { parseDateTimeMicros } from "../../shared/clock.ts";
import type { WebhookEndpointRow } from "../../shared/db/schema.ts";
import { attempt, type AdminActor } from "./admin-area.service.ts";
import type { AdminAreaContext, AdminAreaRouter } from "./context.ts";
import { html } from "./html.ts";
import { htmlResponse, redirect } from "./http.ts";
import type { Notice } from "./layout.ts";
import { refusedPage } from "./pages/auth.ts";
import { deleteConfirmPage, endpointPage, minuteOf, webhooksPage, type EndpointForm, type ShownSecret } from "./pages/webhooks.ts";

const ATTEMPTS_PAGE = 50;
const DAY_MICROS = 24 * 3600 * 1_000_000;
/** More than a workspace may have (16): the list is one page. */
const ALL_ENDPOINTS = 100;

const NOTICES: Record<string, string> = {
  pinged: "A test event is on its way: its attempt appears below within seconds.",
  enabled: "Endpoint enabled: new events are sent to it again. Recover the ones it missed below.",
  disabled: "Endpoint disabled: nothing is sent to it until it is enabled.",
  deleted: "Endpoint deleted.",
};
const noticeFrom = (request: Request): Notice | null => {
  const key = [...new URL(request.url).searchParams.keys()].find((k) => k in NOTICES);
  return key ? { kind: "ok", text: NOTICES[key]! } : null;
};

/** The recovery's start: the form's `datetime-local` (minutes or seconds, read as UTC) or an exact instant carried over from the previous run. */
function sinceFrom(value: string): { text: string; micros: number } | null {
  const text = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/.test(value) ? `${value}:00Z` : /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/.test(value) ? `${value}Z` : value;
  const micros = parseDateTimeMicros(text);
  return micros === null ? null : { text, micros };
}

function endpointForm(form: URLSearchParams): EndpointForm {
  const events = form.getAll("events").map((e) => e.trim()).filter(Boolean);
  return { url: (form.get("url") ?? "").trim(), description: (form.get("description") ?? "").trim(), events: events.includes("*") ? ["*"] : events };
}

/** The webhook endpoints of the session's workspace: the API's service behind every action, each audited. */
export function webhookRoutes(router: AdminAreaRouter, { webhooks, guards, clock, nonces }: AdminAreaContext) {
  const { service, endpoints } = webhooks;
  const notFound = () => htmlResponse(refusedPage("No such webhook endpoint in this workspace."), 404);
  const list = (orgId: string) => endpoints.page(orgId, Number.MAX_SAFE_INTEGER, ALL_ENDPOINTS);

  const { newNonce, firstSubmission } = nonces;

  async function showEndpoint(session: AdminActor["session"], id: string, options: { before?: number; notice?: Notice | null; shown?: ShownSecret | null; since?: string; continueFrom?: string | null } = {}, status = 200) {
    const endpoint = await endpoints.byId(session.orgId, id);
    if (!endpoint) return notFound();
    const rows = await endpoints.attempts(session.orgId, endpoint.id, options.before ?? Number.MAX_SAFE_INTEGER, ATTEMPTS_PAGE + 1);
    const page = rows.slice(0, ATTEMPTS_PAGE);
    const next = rows.length > ATTEMPTS_PAGE ? String(page[page.length - 1]!.createdAt) : null;
    const since = options.since ?? minuteOf(endpoint.failingSince ?? clock.nowMicros() - DAY_MICROS);
    return htmlResponse(endpointPage(session, endpoint, page, { nonce: newNonce(), next, since, continueFrom: options.continueFrom ?? null, notice: options.notice, shown: options.shown }), status);
  }

  router.get("/admin/webhooks", guards.page(async (session, ctx) => htmlResponse(webhooksPage(session, await list(session.orgId), { nonce: newNonce(), notice: noticeFrom(ctx.request) }))));
  router.post(
    "/admin/webhooks",
    guards.action(async (actor, form) => {
      const orgId = actor.session.orgId;
      if (!(await firstSubmission(form))) return redirect("/admin/webhooks");
      const input = endpointForm(form);
      const result =
        input.events.length === 0
          ? { ok: false as const, message: "Choose at least one event, or every event." }
          : await attempt(() => service.create(actor, { url: input.url, enabledEvents: input.events, description: input.description || null }));
      if (!result.ok) {
        return htmlResponse(webhooksPage(actor.session, await list(orgId), { nonce: newNonce(), notice: { kind: "error", text: result.message }, form: input }), 400);
      }
      const shown = { url: result.value.url, secret: result.value.secret, rotated: false };
      return htmlResponse(webhooksPage(actor.session, await list(orgId), { nonce: newNonce(), shown }));
    }),
  );

  router.get(
    "/admin/webhooks/:id",
    guards.page(async (session, ctx) => {
      const before = new URL(ctx.request.url).searchParams.get("before");
      return showEndpoint(session, ctx.params.id ?? "", { before: before && /^\d{1,17}$/.test(before) ? Number(before) : undefined, notice: noticeFrom(ctx.request) });
    }),
  );

  /** An action on one endpoint of the session's workspace; another workspace's is "not found". */
  const endpointAction = (suffix: string, act: (actor: AdminActor, endpoint: WebhookEndpointRow, form: URLSearchParams) => Promise<Response>) =>
    router.post(
      `/admin/webhooks/:id/${suffix}`,
      guards.action(async (actor, form, ctx) => {
        const endpoint = await endpoints.byId(actor.session.orgId, ctx.params.id ?? "");
        return endpoint ? act(actor, endpoint, form) : notFound();
      }),
    );
  const refused = (actor: AdminActor, id: string, message: string) => showEndpoint(actor.session, id, { notice: { kind: "error", text: message } }, 400);
  const here = (id: string, notice: string) => redirect(`/admin/webhooks/${encodeURIComponent(id)}?${notice}`);

  endpointAction("status", async (actor, { id }, form) => {
    const status = form.get("status") === "enabled" ? "enabled" : "disabled";
    const result = await attempt(() => service.setStatus(actor, id, status));
    return result.ok ? here(id, status) : refused(actor, id, result.message);
  });
  endpointAction("ping", async (actor, { id }) => {
    const result = await attempt(() => service.ping(actor, id));
    return result.ok ? here(id, "pinged") : refused(actor, id, result.message);
  });
  endpointAction("rotate", async (actor, { id }, form) => {
    // Rotating twice (a reload of this POST) would end the previous secret's 24 hours at once.
    if (!(await firstSubmission(form))) return here(id, "");
    const result = await attempt(() => service.rotate(actor, id));
    if (!result.ok) return refused(actor, id, result.message);
    return showEndpoint(actor.session, id, { shown: { url: result.value.url, secret: result.value.secret, rotated: true } });
  });
  endpointAction("recover", async (actor, endpoint, form) => {
    const { id } = endpoint;
    const since = sinceFrom((form.get("since") ?? "").trim());
    if (since === null) return refused(actor, id, "Give the moment to recover from as a date and time (UTC).");
    const result = await attempt(() => service.recover(actor, endpoint, since.text));
    if (!result.ok) return refused(actor, id, result.message);
    const { queued, has_more, next_since } = result.value;
    const text =
      has_more && next_since
        ? html`Queued ${queued} events again, oldest first. More remain: recover the next ones from ${next_since} below.`
        : html`Queued ${queued} ${queued === 1 ? "event" : "events"} again, oldest first.`;
    return showEndpoint(actor.session, id, { notice: { kind: "ok", text }, since: minuteOf(since.micros), continueFrom: has_more ? next_since : null });
  });
  endpointAction("delete", async (actor, endpoint, form) => {
    if (form.get("confirm") !== "yes") return htmlResponse(deleteConfirmPage(actor.session, endpoint));
    const result = await attempt(() => service.remove(actor, endpoint.id, endpoint.url));
    return result.ok ? redirect("/admin/webhooks?deleted") : refused(actor, endpoint.id, result.message);
  });
}
