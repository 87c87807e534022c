import { readFileSync } from "node:fs";
import { hostname, userInfo } from "node:os";
import { OPERATOR_ACTOR } from "../shared/audit.store.ts";
import { formatMicrosOrNull, systemClock } from "../shared/clock.ts";
import type { Database } from "../shared/db/database.ts";
import type { Flow } from "../shared/db/flow.ts";
import type { ApiKeyRow, OrganizationRow, UserRole, UserRow } from "../shared/db/schema.ts";
import type { RateLimitTier } from "../shared/domain.ts";
import { issueInvite } from "../shared/invites.ts";
import {
  addUser,
  createApiKey,
  createWorkspace,
  findUserByEmail,
  listApiKeys,
  listUsers,
  listWorkspaces,
  OperatorError,
  revokeApiKey,
  storeOf,
  updateWorkspace,
} from "../shared/workspaces.ts";
import { required, table, type Command, type Flags } from "./output.ts";
import { adminStores } from "./stores.ts";

/*
 * Workspaces, their keys and their people. Every command that changes a workspace writes an
 * audit entry in the change's own transaction, so the workspace's administrators read in their
 * audit log what the operator did, as they read each other's actions: the actor is
 * OPERATOR_ACTOR and "from" the OS user and host the command ran as.
 */

/** `user@host` of the shell the command runs in (the audit log's "from"). */
function operatorAddress(): string {
  let user: string;
  try {
    user = userInfo().username;
  } catch {
    user = process.env.USER || process.env.LOGNAME || "unknown";
  }
  return `${user}@${hostname()}`;
}

function* audit(database: Database, orgId: string, action: string, target: string | null, detail: string | null = null): Flow<void> {
  yield* adminStores(database).audit.insert({ orgId, actorUserId: null, actor: OPERATOR_ACTOR, action, target, detail, address: operatorAddress(), at: systemClock.nowMicros() });
}

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

function onOff(value: string | boolean | undefined, flag: string): boolean | undefined {
  if (value === undefined) return undefined;
  if (value === "on") return true;
  if (value === "off") return false;
  throw new OperatorError(`${flag} takes on or off (got '${value}').`);
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

/** A key as the audit log names it (the admin area writes the same). */
const keyLabel = (key: Pick<ApiKeyRow, "name" | "prefix">) => `${key.name} (${key.prefix}…)`;

/** An invite link, with a word on stderr when its origin is only the default's guess. */
function inviteLine(url: string, warning: string | null): string {
  if (warning) console.error(warning);
  return url;
}

export const ACCOUNT_COMMANDS: Record<string, Command> = {
  "workspace create": function* (database, flags) {
    const org = yield* database.transaction(function* () {
      const org = yield* createWorkspace(database, systemClock, { slug: required(flags, "slug"), name: required(flags, "name") });
      yield* audit(database, org.id, "workspace.create", `${org.name} (${org.slug})`);
      return org;
    });
    const json = workspaceJson(org);
    return { json, text: `Created workspace ${json.slug} (${json.id}).` };
  },
  "workspace list": function* (database) {
    const data = (yield* listWorkspaces(database)).map(workspaceJson);
    return { json: { object: "list", data }, text: table(data, ["id", "slug", "name"]) };
  },
  "workspace update": function* (database, flags, context) {
    const token = slackToken(flags);
    const org = yield* database.transaction(function* () {
      const org = yield* updateWorkspace(database, {
        slug: required(flags, "slug"),
        slackToken: token,
        launchRecap: onOff(flags["launch-recap"], "--launch-recap"),
        secretKey: context.secretKey,
      });
      const detail = [
        flags["launch-recap"] === undefined ? null : `launch recap ${org.launchRecapEnabled ? "on" : "off"}`,
        token === undefined ? null : token === "" ? "Slack token cleared" : "Slack token replaced",
      ];
      yield* audit(database, org.id, "settings.update", null, detail.filter(Boolean).join("; "));
      return org;
    });
    const json = workspaceJson(org);
    return { json, text: `Updated workspace ${json.slug}: launch recap ${json.launch_recap_enabled ? "on" : "off"}, Slack token ${json.slack_token_set ? "set" : "not set"}.` };
  },
  "key create": function* (database, flags) {
    const tier = (flags.tier ?? "default") as RateLimitTier;
    const { row, key } = yield* database.transaction(function* () {
      const created = yield* createApiKey(database, systemClock, {
        workspaceSlug: required(flags, "workspace"),
        name: required(flags, "name"),
        mode: flags.test ? "test" : "live",
        tier,
      });
      yield* audit(database, created.org.id, "api_key.create", keyLabel(created.row), `mode ${created.row.mode}, tier ${created.row.rateLimitTier}`);
      return created;
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
    const key = yield* database.transaction(function* () {
      const id = required(flags, "id");
      const before = yield* storeOf(database).apiKeyById(id);
      const key = yield* revokeApiKey(database, systemClock, id);
      // Revoking a revoked key changes nothing, and says nothing in the log.
      if (before?.revokedAt === null) yield* audit(database, key.orgId, "api_key.revoke", keyLabel(key));
      return key;
    });
    const json = keyJson(key);
    return { json, text: `Revoked key '${json.name}' (${json.id}).` };
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
      yield* audit(database, user.orgId, "user.add", user.email, `role ${user.role}`);
      const invite = user.role === "admin" ? yield* issueInvite(database, systemClock, user, context.publicUrl) : null;
      if (invite) yield* audit(database, user.orgId, "user.invite", user.email);
      return { user, invite };
    });
    const json = { ...userJson(user), invite_url: invite?.url ?? null, invite_expires_at: formatMicrosOrNull(invite?.expiresAt ?? null) };
    const text = `Added ${user.name} (${user.id}, ${user.role}).` + (invite ? `\nInvite link (one use, valid 24 h): ${inviteLine(invite.url, context.linkWarning)}` : "");
    return { json, text };
  },
  "user reset-password": function* (database, flags, context) {
    const { user, invite } = yield* database.transaction(function* () {
      const user = yield* findUserByEmail(database, required(flags, "workspace"), required(flags, "email"));
      const invite = yield* issueInvite(database, systemClock, user, context.publicUrl);
      yield* audit(database, user.orgId, "user.invite", user.email, "new password link");
      return { user, invite };
    });
    return {
      json: { ...userJson(user), invite_url: invite.url, invite_expires_at: formatMicrosOrNull(invite.expiresAt) },
      text: `New link for ${user.email} to set a password (one use, valid 24 h): ${inviteLine(invite.url, context.linkWarning)}`,
    };
  },
  "user list": function* (database, flags) {
    const data = (yield* listUsers(database, required(flags, "workspace"))).map(userJson);
    return { json: { object: "list", data }, text: table(data, ["id", "name", "email", "slack_user_id", "created_at"]) };
  },
};
