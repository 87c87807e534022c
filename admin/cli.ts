/**
 * Operator command line: `npm run admin -- <group> <action> [--flags] [--json]`.
 * With --json the last line of stdout is one JSON object; failures exit non-zero with the
 * reason on stderr.
 */
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { formatMicrosOrNull, systemClock } from "../shared/clock.ts";
import { ConfigError } from "../shared/errors.ts";
import { databaseFromEnv, loadConfig, redactPassword, withStoredSecrets, type DatabaseConfig } from "../shared/config.ts";
import { CopyRefused, copySqliteToPostgres } from "../shared/db/copy.store.ts";
import type { Database } from "../shared/db/database.ts";
import { convertToIncrementalVacuum } from "../shared/db/client.ts";
import { run, use, type Flow } from "../shared/db/flow.ts";
import { closePostgres, openPostgres, type PgDb } from "../shared/db/postgres.ts";
import { listActivity, listWebhookAttempts, listWebhookEndpoints, listDeliveries, listTimeline, reportPhaseDurations } from "./reports.ts";
import { pruneExpired, retentionStatus, type Lifetimes } from "../shared/retention.ts";
import { DatabaseUnreachable, openConfiguredDatabase } from "../shared/db/open.ts";
import type { ApiKeyRow, OrganizationRow } from "../shared/db/schema.ts";
import type { RateLimitTier } from "../shared/domain.ts";
import { issueInvite } from "../shared/invites.ts";
import type { UserRole } from "../shared/db/schema.ts";
import {
  addUser,
  findUserByEmail,
  createApiKey,
  createWorkspace,
  listApiKeys,
  listWorkspaces,
  listUsers,
  OperatorError,
  revokeApiKey,
  updateWorkspace,
} from "../shared/workspaces.ts";
import type { UserRow } from "../shared/db/schema.ts";

const USAGE = `Usage: npm run admin -- <command> [options] [--json]

  workspace create --slug SLUG --name NAME
  workspace list
  workspace update --slug SLUG [--slack-token-file PATH|-] [--launch-recap on|off]
  key create --workspace SLUG --name NAME [--test] [--tier default|paid]
  key list --workspace SLUG
  key revoke --id KEY_ID
  user add --workspace SLUG --name NAME --email EMAIL [--slack-user-id U…] [--role admin|member]
  user reset-password --workspace SLUG --email EMAIL
  user list --workspace SLUG
  timeline list --workspace SLUG --customer REF
  effects list --workspace SLUG [--onboarding REF]
  retention run                prune every table's expired rows now (the worker does it every RETENTION_PRUNE_SECONDS)
  retention status             rows, oldest row, bytes on disk and lifetime of each table that grows with traffic
  retention vacuum             SQLite made before this version: convert it once so pruning shrinks the file (one VACUUM)
  activity list --workspace SLUG [--limit N]   newest first (default 50); "repeat" counts a key's refusals in one second
  webhooks list --workspace SLUG               the workspace's webhook endpoints, their status and why one was disabled
  webhooks attempts --workspace SLUG --endpoint we_… [--limit N]   its delivery attempts, newest first (default 20, at most 100)
  report phase-durations --workspace SLUG [--from T] [--to T] [--customer REF]   days per phase (mean, median, p90 of active time) and launches on time, for visits that ended in [from, to)
  db copy --to postgres://…   copy this SQLite database into an empty PostgreSQL one

(\`org\` and \`--org\` are accepted as older spellings of \`workspace\` and \`--workspace\`.)

Reads DATABASE_URL (a SQLite file:… or a postgres://… URL; default file:./data/onboarding.sqlite) and, for the Slack token,
SECRET_KEY (from the environment or DATA_DIR/secrets.json). --slack-token-file reads the
token from a file, or from standard input with '-'; --slack-token TOKEN also works but
puts the token where \`ps\` shows it to every user of the machine. An administrator's invite
link (valid 24 h, one use) starts with PUBLIC_URL (default http://HOST:PORT).`;

/** The Slack token from a file or standard input ('-'), never from the command line if avoidable. */
function slackToken(flags: Flags): string | undefined {
  const file = flags["slack-token-file"] as string | undefined;
  if (file !== undefined) {
    let text: string;
    try {
      text = readFileSync(file === "-" ? 0 : file, "utf8");
    } catch (error) {
      throw new OperatorError(`cannot read --slack-token-file ${file}: ${(error as Error).message}`);
    }
    const token = text.trim();
    if (token === "") throw new OperatorError(`--slack-token-file ${file} is empty`);
    return token;
  }
  const inline = flags["slack-token"] as string | undefined;
  if (inline !== undefined) console.error("Warning: --slack-token is visible to other users in `ps`; prefer --slack-token-file (or - for standard input).");
  return inline;
}

const workspaceJson = (org: OrganizationRow) => ({
  object: "workspace",
  id: org.id,
  slug: org.slug,
  name: org.name,
  launch_recap_enabled: org.launchRecapEnabled,
  slack_token_set: org.slackTokenEncrypted !== null,
});

const userJson = (user: UserRow) => ({
  object: "user",
  id: user.id,
  name: user.name,
  email: user.email,
  slack_user_id: user.slackUserId,
  role: user.role,
  created_at: formatMicrosOrNull(user.createdAt),
});

function onOff(value: string | boolean | undefined, flag: string): boolean | undefined {
  if (value === undefined) return undefined;
  if (value === "on") return true;
  if (value === "off") return false;
  throw new OperatorError(`${flag} takes on or off (got '${value}').`);
}

const keyJson = (key: ApiKeyRow) => ({
  object: "api_key",
  id: key.id,
  name: key.name,
  prefix: key.prefix,
  mode: key.mode,
  rate_limit_tier: key.rateLimitTier,
  created_at: formatMicrosOrNull(key.createdAt),
  revoked_at: formatMicrosOrNull(key.revokedAt),
  last_used_at: formatMicrosOrNull(key.lastUsedAt),
  last_used_ip: key.lastUsedIp,
  request_count: key.requestCount,
});

type Flags = Record<string, string | boolean | undefined>;

function required(flags: Flags, name: string): string {
  const value = flags[name];
  if (typeof value !== "string" || value === "") throw new OperatorError(`--${name} is required.`);
  return value;
}

interface Output {
  json: Record<string, unknown>;
  text: string;
}

function table(rows: Record<string, unknown>[], columns: string[]): string {
  if (rows.length === 0) return "(none)";
  const cells = rows.map((r) => columns.map((c) => String(r[c] ?? "-")));
  const widths = columns.map((c, i) => Math.max(c.length, ...cells.map((row) => row[i]!.length)));
  const line = (values: string[]) => values.map((v, i) => v.padEnd(widths[i]!)).join("  ").trimEnd();
  return [line(columns), ...cells.map(line)].join("\n");
}

type Context = { secretKey: string | null; publicUrl: string; lifetimes: Lifetimes };

/** A lifetime as the variables write it: `90d`, `24h`, `30m`, `45s`. */
function duration(micros: number): string {
  const seconds = micros / 1_000_000;
  for (const [unit, size] of [["d", 86_400], ["h", 3600], ["m", 60]] as const) if (seconds % size === 0) return `${seconds / size}${unit}`;
  return `${seconds}s`;
}

/**
 * Every command is a flow over the configured database (shared/db/flow.ts): `run` drives it
 * synchronously on SQLite and asynchronously on PostgreSQL, from the same code.
 */
const COMMANDS: Record<string, (database: Database, flags: Flags, context: Context) => Flow<Output>> = {
  "workspace create": function* (database, flags) {
    const org = workspaceJson(yield* createWorkspace(database, systemClock, { slug: required(flags, "slug"), name: required(flags, "name") }));
    return { json: org, text: `Created workspace ${org.slug} (${org.id}).` };
  },
  "workspace list": function* (database) {
    const data = (yield* listWorkspaces(database)).map(workspaceJson);
    return { json: { object: "list", data }, text: table(data, ["id", "slug", "name"]) };
  },
  "key create": function* (database, flags) {
    const tier = (flags.tier ?? "default") as RateLimitTier;
    const { row, key } = yield* createApiKey(database, systemClock, {
      workspaceSlug: required(flags, "workspace"),
      name: required(flags, "name"),
      mode: flags.test ? "test" : "live",
      tier,
    });
    const json = { object: "api_key", id: row.id, name: row.name, prefix: row.prefix, mode: row.mode, rate_limit_tier: row.rateLimitTier, key };
    return { json, text: `Created ${row.mode} key '${row.name}' (${row.id}).\nKey (shown only now, store it safely): ${key}` };
  },
  "key list": function* (database, flags) {
    const data = (yield* listApiKeys(database, required(flags, "workspace"))).map(keyJson);
    return {
      json: { object: "list", data },
      text: table(data, ["id", "name", "prefix", "mode", "rate_limit_tier", "created_at", "revoked_at", "last_used_at", "last_used_ip", "request_count"]),
    };
  },
  "key revoke": function* (database, flags) {
    const key = keyJson(yield* revokeApiKey(database, systemClock, required(flags, "id")));
    return { json: key, text: `Revoked key '${key.name}' (${key.id}).` };
  },
  "workspace update": function* (database, flags, context) {
    const org = workspaceJson(
      yield* updateWorkspace(database, {
        slug: required(flags, "slug"),
        slackToken: slackToken(flags),
        launchRecap: onOff(flags["launch-recap"], "--launch-recap"),
        secretKey: context.secretKey,
      }),
    );
    return { json: org, text: `Updated workspace ${org.slug}: launch recap ${org.launch_recap_enabled ? "on" : "off"}, Slack token ${org.slack_token_set ? "set" : "not set"}.` };
  },
  "user add": function* (database, flags, context) {
    const role = (flags.role ?? "member") as UserRole;
    const { user, invite } = yield* database.transaction(function* () {
      const user = yield* addUser(database, systemClock, {
        workspaceSlug: required(flags, "workspace"),
        name: required(flags, "name"),
        email: required(flags, "email"),
        slackUserId: flags["slack-user-id"] as string | undefined,
        role,
      });
      return { user, invite: user.role === "admin" ? yield* issueInvite(database, systemClock, user, context.publicUrl) : null };
    });
    const json = { ...userJson(user), invite_url: invite?.url ?? null, invite_expires_at: formatMicrosOrNull(invite?.expiresAt ?? null) };
    const text = `Added ${user.name} (${user.id}, ${user.role}).` + (invite ? `\nInvite link (one use, valid 24 h): ${invite.url}` : "");
    return { json, text };
  },
  "user reset-password": function* (database, flags, context) {
    const user = yield* findUserByEmail(database, required(flags, "workspace"), required(flags, "email"));
    const invite = yield* database.transaction(() => issueInvite(database, systemClock, user, context.publicUrl));
    return {
      json: { ...userJson(user), invite_url: invite.url, invite_expires_at: formatMicrosOrNull(invite.expiresAt) },
      text: `New link for ${user.email} to set a password (one use, valid 24 h): ${invite.url}`,
    };
  },
  "user list": function* (database, flags) {
    const data = (yield* listUsers(database, required(flags, "workspace"))).map(userJson);
    return { json: { object: "list", data }, text: table(data, ["id", "name", "email", "slack_user_id", "created_at"]) };
  },
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

/**
 * `db copy --to postgres://…`: DATABASE_URL must name the SQLite source; the target is
 * migrated, must be empty, and receives every row in one transaction.
 */
async function copyDatabase(flags: Flags, database: DatabaseConfig): Promise<Output> {
  const to = required(flags, "to");
  const target = databaseFromEnv({ DATABASE_URL: to });
  if (target.engine !== "postgres") throw new OperatorError(`--to must be a postgres:// or postgresql:// URL (got '${redactPassword(to)}').`);
  if (database.engine !== "sqlite") {
    throw new OperatorError("db copy reads a SQLite database, but DATABASE_URL names PostgreSQL: set DATABASE_URL to the SQLite file to copy (file:…).");
  }
  const source = await openConfiguredDatabase(database);
  if (source.engine !== "sqlite") throw new Error("a file: DATABASE_URL opened as PostgreSQL");
  let pg: PgDb | undefined;
  try {
    pg = await openPostgres(target.url, { poolSize: 1, statementTimeoutMs: 600_000 }).catch((error: Error) => {
      throw new OperatorError(`cannot open ${redactPassword(target.url)}: ${error.message}`);
    });
    const report = await copySqliteToPostgres(source.db, pg).catch((error: Error) => {
      throw error instanceof CopyRefused ? new OperatorError(error.message) : error;
    });
    const lines = Object.entries(report.tables).map(([name, n]) => `${name.padEnd(20)} ${n}`);
    return {
      json: { object: "db_copy", to: redactPassword(target.url), tables: report.tables, total: report.total },
      text: `Copied ${report.total} rows into ${redactPassword(target.url)} (row counts verified):\n${lines.join("\n")}`,
    };
  } finally {
    source.close();
    if (pg) await closePostgres(pg);
  }
}

async function main(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        json: { type: "boolean" },
        test: { type: "boolean" },
        help: { type: "boolean", short: "h" },
        slug: { type: "string" },
        name: { type: "string" },
        workspace: { type: "string" },
        org: { type: "string" },
        tier: { type: "string" },
        id: { type: "string" },
        email: { type: "string" },
        customer: { type: "string" },
        from: { type: "string" },
        onboarding: { type: "string" },
        "slack-token": { type: "string" },
        "slack-token-file": { type: "string" },
        "slack-user-id": { type: "string" },
        "launch-recap": { type: "string" },
        role: { type: "string" },
        to: { type: "string" },
        limit: { type: "string" },
        endpoint: { type: "string" },
      },
    });
  } catch (error) {
    console.error(`${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (positionals[0] === "org") positionals[0] = "workspace";
  values.workspace ??= values.org;
  const name = positionals.slice(0, 2).join(" ");
  const command = COMMANDS[name];
  if (values.help || (!command && name !== "db copy") || positionals.length !== 2) {
    (values.help ? console.log : console.error)(USAGE);
    return values.help ? 0 : 2;
  }
  try {
    const config = loadConfig(withStoredSecrets(process.env));
    let output: Output;
    if (name === "db copy") {
      output = await copyDatabase(values, config.database);
    } else {
      const database = await openConfiguredDatabase(config.database);
      try {
        output = await run(command!(database, values, { secretKey: config.secretKey, publicUrl: config.publicUrl, lifetimes: config.lifetimes }));
      } finally {
        await database.close();
      }
    }
    console.log(values.json ? JSON.stringify(output.json) : output.text);
    return 0;
  } catch (error) {
    if (error instanceof OperatorError || error instanceof ConfigError) {
      console.error(`Error: ${error.message}`);
      return 1;
    }
    if (error instanceof DatabaseUnreachable) {
      console.error(`Database unavailable: ${error.message}`);
      return 69;
    }
    throw error;
  }
}

process.exitCode = await main(process.argv.slice(2));
