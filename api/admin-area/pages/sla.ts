import type { PhaseDurationReportResource } from "../../phase-durations/phase-durations.schema.ts";
import type { SessionView } from "../admin-area.store.ts";
import { barChart, formatDuration, shareBar } from "../charts.ts";
import { html, type SafeHtml } from "../html.ts";
import { notice, page, type Notice } from "../layout.ts";
import { phaseLabel } from "./onboarding-words.ts";

export interface SlaForm {
  /** `YYYY-MM-DD`, UTC days, both included. */
  from: string;
  to: string;
  customer: string;
}

function durationsChart(report: PhaseDurationReportResource): SafeHtml {
  return barChart({
    id: "sla-phases",
    title: "Active time per phase",
    description: `Median and 90th percentile of the active time of the phase visits that ended in the period, ${report.phases.length} phases. Suspended time (waiting on the customer) is not counted.`,
    series: [
      { key: "median", name: "Median" },
      { key: "p90", name: "90th percentile" },
    ],
    rows: report.phases.map((p) => ({
      label: phaseLabel(p.phase),
      bars: [
        { segments: [{ series: "median", seconds: p.median_active_seconds }], text: `median ${formatDuration(p.median_active_seconds)}` },
        { segments: [{ series: "p90", seconds: p.p90_active_seconds }], text: `p90 ${formatDuration(p.p90_active_seconds)} · ${p.visits} ${p.visits === 1 ? "visit" : "visits"}` },
      ],
    })),
    table: {
      rowHeader: "Phase",
      head: ["Visits", "Median", "90th percentile", "Mean"],
      cells: (i) => {
        const p = report.phases[i]!;
        return [String(p.visits), formatDuration(p.median_active_seconds), formatDuration(p.p90_active_seconds), formatDuration(p.mean_active_seconds)];
      },
    },
  });
}

function launches(report: PhaseDurationReportResource): SafeHtml {
  const l = report.launches;
  const noTarget = l.count - l.on_time - l.late;
  const rate = l.on_time_rate === null ? "—" : `${Math.round(l.on_time_rate * 1000) / 10}%`;
  return html`<dl class="facts" data-testid="launch-figures">
  <dt>Launches</dt><dd>${l.count}</dd>
  <dt>On-time rate</dt><dd data-testid="on-time-rate">${rate}${l.on_time_rate === null ? html` <span class="muted">(no launch with a target date)</span>` : html` <span class="muted">of the ${l.on_time + l.late} with a target date</span>`}</dd>
  <dt>Mean delay of the late ones</dt><dd data-testid="mean-delay">${l.mean_delay_seconds === null ? "—" : formatDuration(l.mean_delay_seconds)}</dd>
</dl>
${l.count === 0
  ? null
  : shareBar({
      id: "sla-launches",
      title: "Launches against their target",
      description: `${l.on_time} launched on time, ${l.late} late, ${noTarget} without a target date.`,
      parts: [
        { series: "on-time", name: "On time", count: l.on_time },
        { series: "late", name: "Late", count: l.late },
        { series: "no-target", name: "No target date", count: noTarget },
      ],
    })}`;
}

export function slaPage(session: SessionView, form: SlaForm, report: PhaseDurationReportResource | null, options: { notice?: Notice | null } = {}): SafeHtml {
  return page(
    session,
    "/admin/sla",
    "SLA report",
    html`${notice(options.notice)}
<p class="muted">Time per phase as the SLA counts it: from entering a phase to leaving it, less the time the onboarding waited on its customer. Counts the visits that ended in the period; launches are first moves into launch.</p>
<form method="get" action="/admin/sla" class="inline-form" aria-label="Period">
  <div class="field"><label for="f-from">From (UTC day)</label><input id="f-from" name="from" type="date" value="${form.from}"></div>
  <div class="field"><label for="f-to">To (UTC day, included)</label><input id="f-to" name="to" type="date" value="${form.to}"></div>
  <div class="field"><label for="f-customer">Customer (id or number; empty: all)</label><input id="f-customer" name="customer" maxlength="64" value="${form.customer}"></div>
  <button type="submit" class="button-secondary">Show</button>
</form>
${report === null
  ? null
  : html`<h2>Time per phase</h2>
${report.phases.length === 0 ? html`<p class="empty">No phase visit ended in this period.</p>` : durationsChart(report)}
<p class="hint">Medians and 90th percentiles over whole months are read from a monthly summary and are within 2% of the exact value; counts and means are exact.</p>
<h2>Launches</h2>
${launches(report)}`}`,
  );
}
