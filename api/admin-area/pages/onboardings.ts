import { PHASES, STATES, type OnboardingState, type Phase } from "../../../shared/domain.ts";
import { currentVisit } from "../../../shared/phase-durations.ts";
import type { OnboardingRow } from "../../../shared/db/schema.ts";
import type { PhaseDurationsResource } from "../../phase-durations/phase-durations.schema.ts";
import type { SessionView } from "../admin-area.store.ts";
import { barChart, formatDuration } from "../charts.ts";
import { html, type SafeHtml } from "../html.ts";
import { notice, page, pager, table, when, type Notice } from "../layout.ts";
import type { LaunchView, OnboardingListRow } from "../onboarding-pages.store.ts";
import { onboardingLink, person, PHASE_LABELS, phaseLabel, STATE_LABELS, stateBadge, stateLabel, type People } from "./onboarding-words.ts";

const LIST_PATH = "/admin/onboardings";

/** Time in the current phase as the SLA counts it, up to now. */
function phaseTime(row: OnboardingRow, now: number): SafeHtml {
  const t = currentVisit(row, now);
  return html`${formatDuration(t.active)}${t.suspendedNow ? html` <span class="muted">(clock suspended)</span>` : ""}`;
}

// --- Overview ------------------------------------------------------------------------------

export interface Overview {
  now: number;
  pipeline: { phase: Phase; state: OnboardingState; n: number }[];
  overdue: { rows: OnboardingListRow[]; count: number };
  waiting: { rows: OnboardingListRow[]; count: number };
  launches: { rows: LaunchView[]; count: number; onTime: number; late: number; month: string };
}

function pipelineTable(pipeline: Overview["pipeline"]): SafeHtml {
  const counts = new Map(pipeline.map((p) => [`${p.phase}:${p.state}`, p.n]));
  const cell = (phase: Phase, state: OnboardingState | null) => {
    const n = state === null ? STATES.reduce((sum, s) => sum + (counts.get(`${phase}:${s}`) ?? 0), 0) : (counts.get(`${phase}:${state}`) ?? 0);
    if (n === 0) return html`<td class="num muted">0</td>`;
    const query = new URLSearchParams({ phase, ...(state ? { state } : {}) });
    return html`<td class="num"><a href="${`${LIST_PATH}?${query}`}">${n}</a></td>`;
  };
  return html`<div class="table-wrap" role="region" aria-label="Pipeline" tabindex="0" data-testid="pipeline">
<table>
<thead><tr><th scope="col">Phase</th>${STATES.map((s) => html`<th scope="col" class="num">${STATE_LABELS[s]}</th>`)}<th scope="col" class="num">All</th></tr></thead>
<tbody>${PHASES.map((phase) => html`<tr><th scope="row">${PHASE_LABELS[phase]}</th>${STATES.map((s) => cell(phase, s))}${cell(phase, null)}</tr>`)}</tbody>
</table>
</div>`;
}

const more = (shown: number, count: number, link: string) =>
  count > shown ? html`<p class="hint">The ${shown} longest of ${count}. <a href="${link}">All of them in the list</a>.</p>` : null;

function launchOutcome(l: LaunchView): SafeHtml {
  if (l.launchDelaySeconds === null) return html`<span class="muted">no target</span>`;
  return l.launchDelaySeconds === 0 ? html`<span class="badge badge-ok">on time</span>` : html`<span class="badge badge-off">${formatDuration(l.launchDelaySeconds)} late</span>`;
}

function launchCsm(l: LaunchView, people: People): SafeHtml | string {
  if (l.csmId === null) return html`<span class="badge badge-warn" data-testid="launch-csm-unknown">no CSM</span>`;
  if (people.has(l.csmId)) return person(l.csmId, people);
  return html`<span data-testid="launch-csm-unknown">${person(l.csmId, people)}<br><span class="hint">CSM unknown: the launch message to the CSM could not be sent.</span></span>`;
}

export function overviewPage(session: SessionView, o: Overview, people: People): SafeHtml {
  const active = o.pipeline.filter((p) => p.phase !== "completed").reduce((n, p) => n + p.n, 0);
  const { launches } = o;
  const unknownCsm = launches.rows.filter((l) => l.csmId === null || !people.has(l.csmId)).length;
  return page(
    session,
    "/admin/overview",
    "Overview",
    html`<ul class="tiles">
  <li><a href="${LIST_PATH}"><span class="tile-number">${active}</span> onboardings in progress</a></li>
  <li><a href="#overdue"><span class="tile-number" data-testid="overdue-count">${o.overdue.count}</span> overdue</a></li>
  <li><a href="#waiting"><span class="tile-number" data-testid="waiting-count">${o.waiting.count}</span> waiting on the customer</a></li>
  <li><a href="#launches"><span class="tile-number" data-testid="launch-count">${launches.count}</span> launched in ${launches.month}</a></li>
</ul>
<h2>Pipeline</h2>
<p class="muted">Onboardings by phase and state; a number opens them in the list.</p>
${pipelineTable(o.pipeline)}

<h2 id="overdue">Overdue</h2>
<p class="muted">Not yet in launch, and their target launch date has passed; the most overdue first.</p>
${table(
  "Overdue onboardings",
  ["Onboarding", "Phase", "State", "Target launch", "Overdue by", "CSM"],
  o.overdue.rows.map(
    (r) => html`<tr><td>${onboardingLink(r)}</td><td>${phaseLabel(r.phase)}</td><td>${stateBadge(r.state)}</td><td><code>${r.targetLaunchDate}</code></td>
<td class="num">${formatDuration((o.now - r.targetLaunchAt!) / 1_000_000)}</td><td>${person(r.csmId, people)}</td></tr>`,
  ),
  "Nothing is overdue.",
)}
${more(o.overdue.rows.length, o.overdue.count, LIST_PATH)}

<h2 id="waiting">Waiting on the customer</h2>
<p class="muted">The SLA clock is suspended while one waits in state “Waiting”; the longest waits first.</p>
${table(
  "Waiting on the customer",
  ["Onboarding", "Phase", "State", "Waiting since", "For", "CSM"],
  o.waiting.rows.map(
    (r) => html`<tr><td>${onboardingLink(r)}</td><td>${phaseLabel(r.phase)}</td><td>${stateBadge(r.state)}</td><td>${when(r.waitingOnCustomerSince)}</td>
<td class="num">${r.waitingOnCustomerSince === null ? "—" : formatDuration((o.now - r.waitingOnCustomerSince) / 1_000_000)}</td><td>${person(r.csmId, people)}</td></tr>`,
  ),
  "No onboarding is waiting on its customer.",
)}
${more(o.waiting.rows.length, o.waiting.count, `${LIST_PATH}?state=waiting`)}

<h2 id="launches">Launches in ${launches.month}</h2>
<p class="muted">First moves into launch this month (UTC): ${launches.onTime} on time, ${launches.late} late, ${launches.count - launches.onTime - launches.late} without a target date.</p>
${unknownCsm > 0 ? html`<div class="notice notice-warn" role="status" data-testid="unknown-csm-notice">${unknownCsm === 1 ? "One launch" : `${unknownCsm} launches`} this month had no CSM who is a user of this workspace, so no one was told on Slack. Set <code>csm_id</code> to a user's id (Users page).</div>` : null}
${table(
  "Launches this month",
  ["Launched", "Onboarding", "Against the target", "CSM"],
  launches.rows.map(
    (l) => html`<tr><td>${when(l.at)}</td><td>${l.deleted ? html`#${l.displayId} ${l.customerName} <span class="muted">(deleted)</span>` : onboardingLink(l)}</td><td>${launchOutcome(l)}</td><td>${launchCsm(l, people)}</td></tr>`,
  ),
  "No launch yet this month.",
)}
${launches.count > launches.rows.length ? html`<p class="hint">The ${launches.rows.length} most recent of ${launches.count}.</p>` : null}`,
  );
}

// --- The list ------------------------------------------------------------------------------

export interface ListForm {
  phase: string;
  state: string;
  csm: string;
  customer: string;
}

export function onboardingsPage(
  session: SessionView,
  rows: OnboardingListRow[],
  form: ListForm,
  next: string | null,
  context: { now: number; people: People; users: { id: string; name: string }[]; notice?: Notice | null },
): SafeHtml {
  const { now, people } = context;
  const option = (value: string, label: string, current: string) => html`<option value="${value}"${value === current ? html` selected` : ""}>${label}</option>`;
  const freeCsm = form.csm !== "" && form.csm !== "(none)" && form.csm !== "(unknown)" && !people.has(form.csm);
  return page(
    session,
    LIST_PATH,
    "Onboardings",
    html`${notice(context.notice)}
<form method="get" action="${LIST_PATH}" class="inline-form" aria-label="Filter onboardings">
  <div class="field"><label for="f-phase">Phase</label><select id="f-phase" name="phase">
    ${option("", "Any phase", form.phase)}${PHASES.map((p) => option(p, PHASE_LABELS[p], form.phase))}
  </select></div>
  <div class="field"><label for="f-state">State</label><select id="f-state" name="state">
    ${option("", "Any state", form.state)}${STATES.map((s) => option(s, STATE_LABELS[s], form.state))}
  </select></div>
  <div class="field"><label for="f-csm">CSM</label><select id="f-csm" name="csm">
    ${option("", "Anyone", form.csm)}${context.users.map((u) => option(u.id, u.name, form.csm))}
    ${option("(none)", "No CSM", form.csm)}${option("(unknown)", "An id that is not a user", form.csm)}
    ${freeCsm ? option(form.csm, form.csm, form.csm) : null}
  </select></div>
  <div class="field"><label for="f-customer">Customer (id or number)</label><input id="f-customer" name="customer" maxlength="64" value="${form.customer}"></div>
  <button type="submit" class="button-secondary">Filter</button>
</form>
${table(
  "Onboardings",
  ["Onboarding", "Phase", "State", "Time in phase", "CSM", "Target launch", "Started"],
  rows.map(
    (r) => html`<tr><td>${onboardingLink(r)}</td><td>${phaseLabel(r.phase)}</td><td>${stateBadge(r.state)}</td><td class="num">${phaseTime(r, now)}</td>
<td>${person(r.csmId, people)}</td><td>${r.targetLaunchDate ? html`<code>${r.targetLaunchDate}</code>` : "—"}</td><td>${when(r.startedAt)}</td></tr>`,
  ),
  "No onboarding matches.",
)}
${pager(LIST_PATH, { ...form }, next)}`,
  );
}

// --- One onboarding ------------------------------------------------------------------------

export interface TimelineEntry {
  at: number;
  what: SafeHtml | string;
  who: string;
}

function durationsChart(d: PhaseDurationsResource): SafeHtml {
  const rows = d.phases.map((p) => ({
    label: phaseLabel(p.phase) + (p.phase === d.current.phase ? " (now)" : ""),
    bars: [
      {
        segments: [
          { series: "active", seconds: p.active_seconds },
          { series: "suspended", seconds: p.suspended_seconds },
        ],
        text: `${formatDuration(p.active_seconds)} active${p.suspended_seconds > 0 ? ` + ${formatDuration(p.suspended_seconds)} suspended` : ""}${p.visits > 1 ? ` · ${p.visits} visits` : ""}`,
      },
    ],
  }));
  return barChart({
    id: "phase-time",
    title: "Time per phase",
    description: `Active time in each phase visited, with the time the SLA clock was suspended (waiting on the customer) drawn after it. In all: ${formatDuration(d.total_active_seconds)} active, ${formatDuration(d.total_suspended_seconds)} suspended.`,
    series: [
      { key: "active", name: "Active (counts for the SLA)" },
      { key: "suspended", name: "Suspended: waiting on the customer" },
    ],
    rows,
    table: {
      rowHeader: "Phase",
      head: ["Visits", "Active", "Suspended", "First entered", "Last left"],
      cells: (i) => {
        const p = d.phases[i]!;
        return [String(p.visits), formatDuration(p.active_seconds), formatDuration(p.suspended_seconds), p.first_entered_at.slice(0, 19).replace("T", " "), p.last_exited_at?.slice(0, 19).replace("T", " ") ?? "—"];
      },
    },
  });
}

export function onboardingPage(
  session: SessionView,
  row: OnboardingListRow,
  durations: PhaseDurationsResource,
  timeline: TimelineEntry[],
  context: { now: number; people: People },
): SafeHtml {
  const { now, people } = context;
  const overdue = row.targetLaunchAt !== null && row.targetLaunchAt < now && row.phase !== "launch" && row.phase !== "completed";
  const launch =
    durations.launched_at === null
      ? "not yet"
      : html`${durations.launched_at.slice(0, 10)}${durations.launched_on_time === null ? "" : durations.launched_on_time ? html` <span class="badge badge-ok">on time</span>` : html` <span class="badge badge-off">late</span>`}`;
  return page(
    session,
    LIST_PATH,
    `Onboarding #${row.displayId} · ${row.customerName}`,
    html`<dl class="facts" data-testid="onboarding-facts">
  <dt>Id</dt><dd><code>${row.id}</code></dd>
  <dt>Customer</dt><dd>${row.customerName} <code>${row.customerId}</code> · <a href="${`${LIST_PATH}?customer=${encodeURIComponent(row.customerId)}`}">its onboardings</a></dd>
  <dt>Phase</dt><dd>${phaseLabel(row.phase)}, for ${phaseTime(row, now)}</dd>
  <dt>State</dt><dd>${stateBadge(row.state)}${row.waitingOnCustomer ? html` waiting on the customer since ${when(row.waitingOnCustomerSince)}` : ""}</dd>
  <dt>Target launch</dt><dd>${row.targetLaunchDate ? html`<code>${row.targetLaunchDate}</code>${overdue ? html` <span class="badge badge-off">overdue</span>` : ""}` : "—"}</dd>
  <dt>Launched</dt><dd>${launch}</dd>
  <dt>CSM</dt><dd>${person(row.csmId, people)}</dd>
  <dt>Solutions engineer</dt><dd>${person(row.seId, people)}</dd>
  <dt>Designer</dt><dd>${person(row.designerId, people)}</dd>
  <dt>Product ops</dt><dd>${person(row.productOpsId, people)}</dd>
  <dt>Template</dt><dd>${row.templateId ? html`<code>${row.templateId}</code>` : "—"}</dd>
  <dt>Started</dt><dd>${when(row.startedAt)}</dd>
  <dt>Completed</dt><dd>${when(row.completedAt)}</dd>
  <dt>Reminders</dt><dd>${[row.reminderEmail ? "e-mail" : null, row.reminderSlack ? "Slack" : null].filter(Boolean).join(" and ") || "none"}, every ${row.reminderFrequencyDays} ${row.reminderFrequencyDays === 1 ? "day" : "days"} while waiting</dd>
  <dt>Notes</dt><dd>${row.notes ?? "—"}</dd>
  <dt>Updated</dt><dd>${when(row.updatedAt)}</dd>
</dl>
<h2>Time per phase</h2>
${durationsChart(durations)}
<h2>Timeline</h2>
<p class="muted">Phase changes are kept for good. State changes and waiting on the customer come from the change feed, which keeps them as long as the operator's <code>EVENTS_RETENTION</code> (30 days unless changed).</p>
${table(
  "Timeline",
  ["When", "What", "Who"],
  timeline.map((e) => html`<tr><td>${when(e.at)}</td><td>${e.what}</td><td>${e.who}</td></tr>`),
  "Nothing yet.",
)}`,
  );
}
