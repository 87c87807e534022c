import { html, type SafeHtml } from "./html.ts";

/**
 * The admin area's charts: horizontal bar charts drawn on the server as SVG, inside the page
 * (no script, no library, nothing for the strict CSP to refuse). Each is a `<figure>` whose
 * SVG is one labelled image with its numbers written beside the bars, followed by the same
 * numbers as a table for screen readers and for copying. Colours come from admin.css.
 */

/** A series: one colour, named in the legend (`key` becomes the class `s-<key>`). */
export interface Series {
  key: string;
  name: string;
}

export interface Bar {
  /** Stacked left to right; a segment's value is in seconds. */
  segments: { series: string; seconds: number }[];
  /** Written after the bar (the numbers it draws). */
  text: string;
}

export interface ChartRow {
  label: string;
  bars: Bar[];
}

export interface Chart {
  /** Unique on the page: prefixes the title's and description's ids. */
  id: string;
  title: string;
  /** One sentence a screen reader says after the title. */
  description: string;
  series: readonly Series[];
  rows: readonly ChartRow[];
  /** The fallback table: the rows' header, the columns after it, and each row's cells. */
  table: { rowHeader: string; head: readonly string[]; cells: (row: number) => readonly string[] };
}

const MINUTE = 60;
const HOUR = 3600;
const DAY = 86_400;

/** Halves round up, the same on every engine (toFixed alone rounds binary fractions either way). */
const oneDecimal = (n: number) => (Math.round(n * 10) / 10).toFixed(1);

/** A duration as people read it: minutes, hours or days with one decimal. */
export function formatDuration(seconds: number): string {
  if (seconds >= DAY) return `${oneDecimal(seconds / DAY)} d`;
  if (seconds >= HOUR) return `${oneDecimal(seconds / HOUR)} h`;
  return `${Math.round(seconds / MINUTE)} min`;
}

/** The axis: a unit that suits the longest bar, and 4 or 5 round steps covering it. */
function axisFor(maxSeconds: number): { unit: number; suffix: string; step: number; end: number } {
  const [unit, suffix] = maxSeconds >= 2 * DAY ? [DAY, "d"] : maxSeconds >= 2 * HOUR ? [HOUR, "h"] : [MINUTE, "min"];
  const max = Math.max(maxSeconds / unit, 1);
  const raw = max / 4;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = ([1, 2, 2.5, 5, 10].find((m) => m * magnitude >= raw) ?? 10) * magnitude;
  return { unit, suffix: suffix as string, step, end: Math.ceil(max / step) * step };
}

const WIDTH = 760;
const LABEL_WIDTH = 190;
const PLOT_WIDTH = 360;
const BAR_HEIGHT = 16;
const BAR_GAP = 4;
const ROW_GAP = 12;
const TOP = 28;
const AXIS_HEIGHT = 24;
/** A generous average width of a 13px character: a legend entry's room. */
const LEGEND_CHAR_WIDTH = 7.5;

const round = (n: number) => Math.round(n * 10) / 10;

export function barChart(chart: Chart): SafeHtml {
  const longest = Math.max(0, ...chart.rows.flatMap((r) => r.bars.map((b) => b.segments.reduce((n, s) => n + s.seconds, 0))));
  const axis = axisFor(longest);
  const scale = PLOT_WIDTH / (axis.end * axis.unit);

  let y = TOP;
  const rows = chart.rows.map((row) => {
    const top = y;
    const bars = row.bars.map((bar, i) => {
      const barY = top + i * (BAR_HEIGHT + BAR_GAP);
      let x = LABEL_WIDTH;
      const rects = bar.segments.map((s) => {
        const w = s.seconds * scale;
        const rect = html`<rect class="bar s-${s.series}" x="${round(x)}" y="${barY}" width="${round(w)}" height="${BAR_HEIGHT}"></rect>`;
        x += w;
        return rect;
      });
      return html`${rects}<text class="value" x="${round(x + 6)}" y="${barY + BAR_HEIGHT - 4}">${bar.text}</text>`;
    });
    const height = row.bars.length * (BAR_HEIGHT + BAR_GAP) - BAR_GAP;
    y += height + ROW_GAP;
    return html`<text class="label" x="${LABEL_WIDTH - 8}" y="${top + height / 2 + 4}" text-anchor="end">${row.label}</text>${bars}`;
  });
  const plotBottom = y - ROW_GAP + 6;

  const ticks = [];
  for (let v = 0; v <= axis.end + 1e-9; v += axis.step) {
    const x = round(LABEL_WIDTH + v * axis.unit * scale);
    ticks.push(html`<line class="grid" x1="${x}" y1="${TOP - 6}" x2="${x}" y2="${plotBottom}"></line><text class="tick" x="${x}" y="${plotBottom + 16}" text-anchor="middle">${round(v)} ${axis.suffix}</text>`);
  }
  let legendX = LABEL_WIDTH;
  const legend = chart.series.map((s) => {
    const x = legendX;
    legendX += 18 + s.name.length * LEGEND_CHAR_WIDTH + 24;
    return html`<rect class="s-${s.key}" x="${x}" y="4" width="12" height="12"></rect><text class="legend" x="${x + 18}" y="14">${s.name}</text>`;
  });
  const height = plotBottom + AXIS_HEIGHT;

  return html`<figure class="chart" data-testid="chart-${chart.id}">
<figcaption id="${chart.id}-caption">${chart.title}</figcaption>
<svg viewBox="0 0 ${WIDTH} ${height}" width="100%" role="img" aria-labelledby="${chart.id}-title ${chart.id}-desc" preserveAspectRatio="xMinYMin meet">
<title id="${chart.id}-title">${chart.title}</title>
<desc id="${chart.id}-desc">${chart.description}</desc>
${legend}${ticks}${rows}
</svg>
<details class="chart-table"><summary>${chart.title}: the numbers as a table</summary>
<table>
<thead><tr><th scope="col">${chart.table.rowHeader}</th>${chart.table.head.map((h) => html`<th scope="col">${h}</th>`)}</tr></thead>
<tbody>${chart.rows.map((row, i) => html`<tr><th scope="row">${row.label}</th>${chart.table.cells(i).map((c) => html`<td class="num">${c}</td>`)}</tr>`)}</tbody>
</table>
</details>
</figure>`;
}

/** Parts of a whole (launches on time, late, without a target) as one bar, with counts and shares written under it. */
export function shareBar(chart: { id: string; title: string; description: string; parts: { series: string; name: string; count: number }[] }): SafeHtml {
  const total = chart.parts.reduce((n, p) => n + p.count, 0);
  let x = 0;
  const rects = chart.parts.map((p) => {
    const w = total === 0 ? 0 : (p.count / total) * (WIDTH - 2);
    const rect = html`<rect class="bar s-${p.series}" x="${round(x + 1)}" y="4" width="${round(w)}" height="24"></rect>`;
    x += w;
    return rect;
  });
  const percent = (n: number) => (total === 0 ? "—" : `${Math.round((n / total) * 100)}%`);
  const legend = chart.parts.map(
    (p, i) => html`<rect class="s-${p.series}" x="${i * 250 + 1}" y="40" width="12" height="12"></rect><text class="legend" x="${i * 250 + 19}" y="50">${p.name}: ${p.count} (${percent(p.count)})</text>`,
  );
  return html`<figure class="chart" data-testid="chart-${chart.id}">
<figcaption id="${chart.id}-caption">${chart.title}</figcaption>
<svg viewBox="0 0 ${WIDTH} 60" width="100%" role="img" aria-labelledby="${chart.id}-title ${chart.id}-desc" preserveAspectRatio="xMinYMin meet">
<title id="${chart.id}-title">${chart.title}</title>
<desc id="${chart.id}-desc">${chart.description}</desc>
<rect class="frame" x="0.5" y="3.5" width="${WIDTH - 1}" height="25"></rect>${rects}${legend}
</svg>
</figure>`;
}
