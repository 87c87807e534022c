/**
 * Operator command line: `npm run admin -- <group> <action> [--flags] [--json]`.
 * With --json the last line of stdout is one JSON object; failures exit non-zero with the
 * reason on stderr.
 */
import { existsSync } from "node:fs";
import { parseArgs } from "node:util";
import { ConfigError } from "../shared/errors.ts";
import { databaseFromEnv, loadInstallationConfig, redactPassword, type DatabaseConfig } from "../shared/config.ts";
import { CopyRefused, copySqliteToPostgres } from "../shared/db/copy.store.ts";
import { run } from "../shared/db/flow.ts";
import { closePostgres, openPostgres, type PgDb } from "../shared/db/postgres.ts";
import { DatabaseUnreachable, openConfiguredDatabase } from "../shared/db/open.ts";
import { settingsFileOf } from "../shared/installation-files.ts";
import { OperatorError } from "../shared/workspaces.ts";
import { ACCOUNT_COMMANDS } from "./account-commands.ts";
import { required, type Command, type Flags, type Output } from "./output.ts";
import { REPORT_COMMANDS } from "./report-commands.ts";

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

Reads the installation's settings as npm start does: each variable from the environment, else
from DATA_DIR/settings.json (which npm start writes: PORT, HOST, PUBLIC_URL, DATABASE_URL,
REDIS_URL, QUEUE_PREFIX) and DATA_DIR/secrets.json (SECRET_KEY, for the Slack token), else
its default. DATA_DIR is ./data unless the environment says otherwise. --slack-token-file reads
the token from a file, or from standard input with '-'; --slack-token TOKEN also works but
puts the token where \`ps\` shows it to every user of the machine. An administrator's invite
link (valid 24 h, one use) starts with PUBLIC_URL (default http://HOST:PORT). Every command that
changes a workspace is written to its audit log as "operator (CLI)".`;

const COMMANDS: Record<string, Command> = { ...ACCOUNT_COMMANDS, ...REPORT_COMMANDS };

/**
 * An invite link's origin is PUBLIC_URL, else HOST and PORT. When neither the environment nor
 * npm start's settings file names them, the link is the defaults' guess: say so beside it.
 */
function linkWarning(env: Record<string, string | undefined>): string | null {
  if (env.PUBLIC_URL || env.PORT || existsSync(settingsFileOf(env))) return null;
  return `Note: the link starts with the default address: neither PUBLIC_URL nor PORT is set, and there is no ${settingsFileOf(env)} (npm start writes it). Set DATA_DIR to the installation's data directory, or PUBLIC_URL, if the service runs elsewhere.`;
}

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
    const config = loadInstallationConfig(process.env);
    let output: Output;
    if (name === "db copy") {
      output = await copyDatabase(values, config.database);
    } else {
      const database = await openConfiguredDatabase(config.database);
      try {
        const context = { secretKey: config.secretKey, publicUrl: config.publicUrl, lifetimes: config.lifetimes, linkWarning: linkWarning(process.env) };
        output = await run(command!(database, values, context));
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
