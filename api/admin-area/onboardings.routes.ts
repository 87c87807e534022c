import { formatMicros } from "../../shared/clock.ts";
import { run, step } from "../../shared/db/flow.ts";
import { PHASES, STATES, type OnboardingState, type Phase } from "../../shared/domain.ts";
import { monthOf, monthStart, nextMonthStart } from "../../shared/phase-durations.ts";
import { findCustomer } from "../customers/customers.service.ts";
import { phaseDurationReport, phaseDurations } from "../phase-durations/phase-durations.service.ts";
import { findByRef } from "../refs.ts";
import { attempt } from "./admin-area.service.ts";
import { formatDuration } from "./charts.ts";
import type { AdminAreaContext, AdminAreaRouter } from "./context.ts";
import { html } from "./html.ts";
import { htmlResponse } from "./http.ts";
import type { ListFilter, OnboardingEventView, OnboardingListRow, PhaseChangeView } from "./onboarding-pages.store.ts";
import { refusedPage } from "./pages/auth.ts";
import { phaseLabel, stateLabel } from "./pages/onboarding-words.ts";
import { onboardingPage, onboardingsPage, overviewPage, type ListForm, type TimelineEntry } from "./pages/onboardings.ts";
import { slaPage, type SlaForm } from "./pages/sla.ts";

const PAGE_SIZE = 50;
/** How many rows each of the overview's lists shows (the count says how many there are). */
const OVERVIEW_ROWS = 20;
const LAUNCHES_SHOWN = 100;
const DAY_MICROS = 86_400_000_000;
/** The SLA report's default period: the last 90 days, today included. */
const DEFAULT_PERIOD_DAYS = 90;

const query = (request: Request) => new URL(request.url).searchParams;
const oneOf = <T extends string>(values: readonly T[], value: string | null): T | null => (values.includes(value as T) ? (value as T) : null);
const monthName = (micros: number) => new Date(micros / 1000).toLocaleString("en", { month: "long", year: "numeric", timeZone: "UTC" });
const utcDay = (micros: number) => formatMicros(micros).slice(0, 10);
const dayStart = (day: string) => (/^\d{4}-\d{2}-\d{2}$/.test(day) && !Number.isNaN(Date.parse(`${day}T00:00:00Z`)) ? Date.parse(`${day}T00:00:00Z`) * 1000 : null);

/**
 * The timeline of one onboarding: its creation (in the phase its first visit was of), every
 * phase change (kept for good), and from the change feed its state changes and the times it
 * started and stopped waiting on its customer. Oldest first.
 */
function timelineOf(row: OnboardingListRow, changes: PhaseChangeView[], events: OnboardingEventView[]): TimelineEntry[] {
  const entries: TimelineEntry[] = [];
  const created = events.find((e) => e.type === "onboarding.created");
  const firstPhase = changes[0]?.fromPhase ?? row.phase;
  for (const c of changes) {
    entries.push({
      at: c.at,
      what: html`Phase: ${phaseLabel(c.fromPhase)} → <strong>${phaseLabel(c.toPhase)}</strong> <span class="muted">(after ${formatDuration(c.activeSeconds)} active${c.slaSuspendedSeconds > 0 ? `, ${formatDuration(c.slaSuspendedSeconds)} suspended` : ""})</span>`,
      who: c.actor,
    });
  }
  for (const e of events) {
    const data = JSON.parse(e.data) as { object: { state?: string; waiting_on_customer?: boolean }; previous_attributes?: Record<string, unknown> };
    if (e.type === "onboarding.state_changed") {
      entries.push({ at: e.createdAt, what: html`State: ${stateLabel(String(data.previous_attributes?.state))} → <strong>${stateLabel(String(data.object.state))}</strong>`, who: e.actorName });
    } else if (e.type === "onboarding.updated" && data.previous_attributes && "waiting_on_customer" in data.previous_attributes) {
      entries.push({ at: e.createdAt, what: data.object.waiting_on_customer ? "Waiting on the customer" : "No longer waiting on the customer", who: e.actorName });
    }
  }
  // Creation first whatever the clocks say (an event's instant may precede the row's by the
  // microsecond its sequence added); the rest in time order, stable.
  return [{ at: row.createdAt, what: html`Created in <strong>${phaseLabel(firstPhase)}</strong>`, who: created?.actorName ?? "—" }, ...entries.sort((a, b) => a.at - b.at)];
}

/** The onboardings of the session's workspace: overview (where sign-in lands), list, one onboarding, SLA report. */
export function onboardingRoutes(router: AdminAreaRouter, { store, onboardings, guards, clock }: AdminAreaContext) {
  const { pages, services } = onboardings;
  const people = async (orgId: string) => {
    const users = await store.users(orgId);
    return { users: users.map((u) => ({ id: u.id, name: u.name })), people: new Map(users.map((u) => [u.id, u.name])) };
  };

  router.get(
    "/admin/overview",
    guards.page(async (session) => {
      const orgId = session.orgId;
      const now = clock.nowMicros();
      const [from, to] = [monthStart(now), nextMonthStart(now)];
      // The month's launch counts are the SLA report's monthly aggregate, one row.
      const [pipeline, overdue, overdueCount, waiting, waitingCount, launches, launchCount, { people: names }] = await Promise.all([
        pages.pipeline(orgId),
        pages.overdue(orgId, now, OVERVIEW_ROWS),
        pages.overdueCount(orgId, now),
        pages.waiting(orgId, OVERVIEW_ROWS),
        pages.waitingCount(orgId),
        pages.launches(orgId, from, to, LAUNCHES_SHOWN),
        run(services.phaseDurations.monthlyLaunches(orgId, monthOf(from), monthOf(to))),
        people(orgId),
      ]);
      const overview = {
        now,
        pipeline,
        overdue: { rows: overdue, count: overdueCount?.n ?? 0 },
        waiting: { rows: waiting, count: waitingCount?.n ?? 0 },
        launches: { rows: launches, count: launchCount?.launches ?? 0, onTime: launchCount?.onTime ?? 0, late: launchCount?.late ?? 0, month: monthName(now) },
      };
      return htmlResponse(overviewPage(session, overview, names));
    }),
  );

  router.get(
    "/admin/onboardings",
    guards.page(async (session, ctx) => {
      const q = query(ctx.request);
      const form: ListForm = { phase: q.get("phase") ?? "", state: q.get("state") ?? "", csm: (q.get("csm") ?? "").trim(), customer: (q.get("customer") ?? "").trim() };
      const csm: ListFilter["csm"] = form.csm === "" ? null : form.csm === "(none)" ? "none" : form.csm === "(unknown)" ? "unknown" : { id: form.csm };
      const filter: ListFilter = { phase: oneOf<Phase>(PHASES, form.phase), state: oneOf<OnboardingState>(STATES, form.state), csm, customerId: null };
      const before = q.get("before");
      const now = clock.nowMicros();
      const { users, people: names } = await people(session.orgId);
      if (form.customer !== "") {
        const customer = await attempt(() => run(findCustomer(services.customers, session.orgId, form.customer)));
        if (!customer.ok) return htmlResponse(onboardingsPage(session, [], form, null, { now, people: names, users, notice: { kind: "error", text: customer.message } }), 404);
        filter.customerId = customer.value.id;
      }
      const rows = await pages.list(session.orgId, filter, before && /^\d{1,17}$/.test(before) ? Number(before) : Number.MAX_SAFE_INTEGER, PAGE_SIZE + 1);
      const page = rows.slice(0, PAGE_SIZE);
      const next = rows.length > PAGE_SIZE ? String(page[page.length - 1]!.createdAt) : null;
      return htmlResponse(onboardingsPage(session, page, form, next, { now, people: names, users }));
    }),
  );

  router.get(
    "/admin/onboardings/:ref",
    guards.page(async (session, ctx) => {
      const orgId = session.orgId;
      const row = await run(findByRef(ctx.params.ref ?? "", (id) => step(() => pages.one(orgId, id)), (n) => step(() => pages.oneByNumber(orgId, n))));
      if (!row) return htmlResponse(refusedPage("No such onboarding in this workspace."), 404);
      const [durations, changes, events, { people: names }] = await Promise.all([
        run(phaseDurations(services, { orgId }, row.id)),
        pages.phaseChanges(orgId, row.id),
        pages.events(orgId, row.id),
        people(orgId),
      ]);
      return htmlResponse(onboardingPage(session, row, durations, timelineOf(row, changes, events), { now: clock.nowMicros(), people: names }));
    }),
  );

  router.get(
    "/admin/sla",
    guards.page(async (session, ctx) => {
      const q = query(ctx.request);
      const today = utcDay(clock.nowMicros());
      const form: SlaForm = {
        from: (q.get("from") ?? "").trim() || utcDay(dayStart(today)! - (DEFAULT_PERIOD_DAYS - 1) * DAY_MICROS),
        to: (q.get("to") ?? "").trim() || today,
        customer: (q.get("customer") ?? "").trim(),
      };
      const [from, to] = [dayStart(form.from), dayStart(form.to)];
      const refuse = (text: string) => htmlResponse(slaPage(session, form, null, { notice: { kind: "error", text } }), 400);
      if (from === null || to === null) return refuse("Give the period as two days (YYYY-MM-DD).");
      if (to < from) return refuse("The period ends before it begins.");
      const report = await attempt(() =>
        run(
          phaseDurationReport(services, { orgId: session.orgId }, {
            from: formatMicros(from),
            to: formatMicros(to + DAY_MICROS),
            ...(form.customer ? { customer_id: form.customer } : {}),
          }),
        ),
      );
      if (!report.ok) return htmlResponse(slaPage(session, form, null, { notice: { kind: "error", text: report.message } }), 404);
      return htmlResponse(slaPage(session, form, report.value));
    }),
  );
}
