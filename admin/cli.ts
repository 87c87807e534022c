/**
 * Operator command line: `npm run admin -- <group> <action> [--flags] [--json]`.
 * With --json the last line of stdout is one JSON object; failures exit non-zero with the
 * reason on stderr.
 */
import { parseArgs } from "node:util";
import { formatMicrosOrNull, systemClock } from "../shared/clock.ts";
import { ConfigError } from "../shared/errors.ts";
import { databasePathFromUrl } from "../shared/config.ts";
import { openDatabase, type Db } from "../shared/db/client.ts";
import type { ApiKeyRow, OrganizationRow } from "../shared/db/schema.ts";
import type { RateLimitTier } from "../shared/domain.ts";
import {
  createApiKey,
  createOrganization,
  listApiKeys,
  listOrganizations,
  OperatorError,
  revokeApiKey,
} from "../shared/workspaces.ts";

const USAGE = `Usage: npm run admin -- <command> [options] [--json]

  org create --slug SLUG --name NAME
  org list
  key create --org SLUG --name NAME [--test] [--tier default|paid]
  key list --org SLUG
  key revoke --id KEY_ID

Reads DATABASE_URL (default file:./data/onboarding.sqlite).`;

const organizationJson = (org: OrganizationRow) => ({
  object: "organization",
  id: org.id,
  slug: org.slug,
  name: org.name,
  launch_recap_enabled: org.launchRecapEnabled,
});

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

const COMMANDS: Record<string, (db: Db, flags: Flags) => Output> = {
  "org create": (db, flags) => {
    const org = organizationJson(createOrganization(db, systemClock, { slug: required(flags, "slug"), name: required(flags, "name") }));
    return { json: org, text: `Created workspace ${org.slug} (${org.id}).` };
  },
  "org list": (db) => {
    const data = listOrganizations(db).map(organizationJson);
    return { json: { object: "list", data }, text: table(data, ["id", "slug", "name"]) };
  },
  "key create": (db, flags) => {
    const tier = (flags.tier ?? "default") as RateLimitTier;
    const { row, key } = createApiKey(db, systemClock, {
      orgSlug: required(flags, "org"),
      name: required(flags, "name"),
      mode: flags.test ? "test" : "live",
      tier,
    });
    const json = { object: "api_key", id: row.id, name: row.name, prefix: row.prefix, mode: row.mode, rate_limit_tier: row.rateLimitTier, key };
    return { json, text: `Created ${row.mode} key '${row.name}' (${row.id}).\nKey (shown only now, store it safely): ${key}` };
  },
  "key list": (db, flags) => {
    const data = listApiKeys(db, required(flags, "org")).map(keyJson);
    return {
      json: { object: "list", data },
      text: table(data, ["id", "name", "prefix", "mode", "rate_limit_tier", "created_at", "revoked_at", "last_used_at", "last_used_ip", "request_count"]),
    };
  },
  "key revoke": (db, flags) => {
    const key = keyJson(revokeApiKey(db, systemClock, required(flags, "id")));
    return { json: key, text: `Revoked key '${key.name}' (${key.id}).` };
  },
};

function main(argv: string[]): number {
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
        org: { type: "string" },
        tier: { type: "string" },
        id: { type: "string" },
      },
    });
  } catch (error) {
    console.error(`${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  const command = COMMANDS[positionals.slice(0, 2).join(" ")];
  if (values.help || !command || positionals.length !== 2) {
    (values.help ? console.log : console.error)(USAGE);
    return values.help ? 0 : 2;
  }
  try {
    const db = openDatabase(databasePathFromUrl(process.env.DATABASE_URL ?? "file:./data/onboarding.sqlite"));
    const output = command(db, values);
    db.$client.close();
    console.log(values.json ? JSON.stringify(output.json) : output.text);
    return 0;
  } catch (error) {
    if (error instanceof OperatorError || error instanceof ConfigError) {
      console.error(`Error: ${error.message}`);
      return 1;
    }
    throw error;
  }
}

process.exitCode = main(process.argv.slice(2));
