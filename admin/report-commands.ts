import { formatMicrosOrNull, systemClock } from "../shared/clock.ts";
import { convertToIncrementalVacuum } from "../shared/db/client.ts";
import { use } from "../shared/db/flow.ts";
import { pruneExpired, retentionStatus } from "../shared/retention.ts";
import { OperatorError } from "../shared/workspaces.ts";
import { required, table, type Command } from "./output.ts";
import { listActivity, listDeliveries, listTimeline, listWebhookAttempts, listWebhookEndpoints, reportPhaseDurations } from "./reports.ts";

/** A lifetime as the variables write it: `90d`, `24h`, `30m`, `45s`. */
function duration(micros: number): string {
  const seconds = micros / 1_000_000;
  for (const [unit, size] of [["d", 86_400], ["h", 3600], ["m", 60]] as const) if (seconds % size === 0) return `${seconds / size}${unit}`;
  return `${seconds}s`;
}

/** What the service did, and the data's lifetimes: commands that read (retention run and vacuum aside, which prune). */
export const REPORT_COMMANDS: Record<string, Command> = {
  "timeline list": function* (database, flags) {
    const data = yield* listTimeline(database, required(flags, "workspace"), required(flags, "customer"));
    return { json: { object: "list", data }, text: table(data, ["at", "kind", "onboarding_id", "from", "to", "actor"]) };
  },
  "activity list": function* (database, flags) {
    const limit = flags.limit === undefined ? 50 : Number(flags.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > 10_000) throw new OperatorError("--limit must be a whole number from 1 to 10000.");
    const data = (yield* listActivity(database, required(flags, "workspace"), limit)).map(({ repeat_count, ...rest }) => ({ ...rest, repeat: repeat_count }));
    return { json: { object: "list", data }, text: table(data, ["at", "actor", "method", "route", "status", "repeat", "address", "duration_ms"]) };
  },
  "webhooks list": function* (database, flags) {
    const data = (yield* listWebhookEndpoints(database, required(flags, "workspace"))).map((e) => ({ ...e, enabled_events: e.enabled_events.join(",") }));
    return { json: { object: "list", data }, text: table(data, ["id", "status", "url", "enabled_events", "disabled_reason", "created_at"]) };
  },
  "webhooks attempts": function* (database, flags) {
    const limit = flags.limit === undefined ? 20 : Number(flags.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > 100) throw new OperatorError("--limit must be a whole number from 1 to 100.");
    const data = yield* listWebhookAttempts(database, required(flags, "workspace"), required(flags, "endpoint"), limit);
    return { json: { object: "list", data }, text: table(data, ["created_at", "event_id", "attempt", "status_code", "duration_ms", "error", "next_attempt_at"]) };
  },
  "report phase-durations": function* (database, flags) {
    const text = (name: string) => (typeof flags[name] === "string" ? (flags[name] as string) : undefined);
    const query = { from: text("from"), to: text("to"), customer_id: text("customer") };
    const report = yield* reportPhaseDurations(database, required(flags, "workspace"), Object.fromEntries(Object.entries(query).filter(([, v]) => v !== undefined)));
    const days = (seconds: number) => (seconds / 86_400).toFixed(1);
    const data = report.phases.map((p) => ({ phase: p.phase, visits: p.visits, mean_days: days(p.mean_active_seconds), median_days: days(p.median_active_seconds), p90_days: days(p.p90_active_seconds) }));
    const { count, on_time, late, on_time_rate, mean_delay_seconds } = report.launches;
    const launches = `Launches: ${count} (${on_time} on time, ${late} late${on_time_rate === null ? "" : `, ${(on_time_rate * 100).toFixed(0)}% on time`}${mean_delay_seconds === null ? "" : `, late by ${days(mean_delay_seconds)} days on average`}).`;
    const period = `Visits that ended ${report.from ? `from ${report.from}` : "from the first"} ${report.to ? `to ${report.to}` : "to now"}; active days (the SLA clock, suspended while waiting on the customer).`;
    return { json: report, text: `${period}\n${data.length ? table(data, ["phase", "visits", "mean_days", "median_days", "p90_days"]) : "No visit ended in this period."}\n${launches}` };
  },
  "retention run": function* (database, _flags, context) {
    const pruned = yield* use(pruneExpired(database, context.lifetimes, systemClock.nowMicros()));
    const total = Object.values(pruned).reduce((a, b) => a + b, 0);
    const lines = Object.entries(pruned).map(([name, n]) => `${name.padEnd(20)} ${n}`);
    return { json: { object: "retention_run", pruned, total }, text: `Pruned ${total} expired rows:\n${lines.join("\n")}` };
  },
  "retention vacuum": function* (database) {
    if (database.engine !== "sqlite") {
      return { json: { object: "retention_vacuum", converted: false }, text: "Nothing to do: PostgreSQL's autovacuum hands freed space back by itself." };
    }
    const done = convertToIncrementalVacuum(database.db);
    const text = done.converted
      ? `Converted to incremental vacuum: ${done.bytesBefore} bytes before, ${done.bytesAfter} after. Pruning now hands freed pages back to the file system.`
      : "Already incremental: pruning hands freed pages back to the file system.";
    return { json: { object: "retention_vacuum", converted: done.converted, bytes_before: done.bytesBefore, bytes_after: done.bytesAfter }, text };
  },
  "retention status": function* (database, _flags, context) {
    const data = (yield* use(retentionStatus(database, context.lifetimes))).map((t) => ({
      table: t.table,
      rows: t.rows,
      oldest: formatMicrosOrNull(t.oldest),
      bytes: t.bytes,
      lifetime: duration(t.lifetime_micros),
    }));
    return { json: { object: "list", data }, text: table(data, ["table", "rows", "oldest", "bytes", "lifetime"]) };
  },
  "effects list": function* (database, flags) {
    const data = yield* listDeliveries(database, required(flags, "workspace"), flags.onboarding as string | undefined);
    return { json: { object: "list", data }, text: table(data, ["created_at", "kind", "onboarding_id", "target", "status", "attempts", "detail"]) };
  },
};
