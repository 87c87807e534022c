import type { Flow } from "./db/flow.ts";
import { apiKeys, invites, organizations, users, type ApiKeyRow, type OrganizationRow, type UserRow } from "./db/schema.ts";
import { col, rowOf, type Sql } from "./db/sql.ts";
import { getTableColumns } from "drizzle-orm";

/** `INSERT INTO t (…every column of the row…) VALUES ($key, …)`, from the schema. */
function insertOf(table: Parameters<typeof getTableColumns>[0], name: string, skip: string[] = []) {
  const columns = Object.entries(getTableColumns(table)).filter(([key]) => !skip.includes(key));
  return `INSERT INTO ${name} (${columns.map(([, c]) => col(c)).join(", ")}) VALUES (${columns.map(([key]) => `$${key}`).join(", ")})`;
}

/**
 * Workspaces, their API keys, users and invites: the statements of the operator's command
 * line and the admin area's account management (shared/workspaces.ts decides, this reads and writes).
 * The reads a change decides on lock their row inside its transaction.
 */
export function createWorkspacesStore(sql: Sql) {
  const org = rowOf(organizations);
  const key = rowOf(apiKeys);
  const user = rowOf(users);
  const organizationBySlug = sql.statement(`SELECT ${org.columns} FROM organizations WHERE slug = $slug`, { decode: org.decode, lock: "update" });
  const insertOrganization = sql.statement(insertOf(organizations, "organizations"));
  const listOrganizations = sql.statement(`SELECT ${org.columns} FROM organizations ORDER BY created_at`, { decode: org.decode });
  const updateSettings = sql.statement(`UPDATE organizations SET slack_token_encrypted = $slackTokenEncrypted, launch_recap_enabled = $launchRecapEnabled WHERE id = $id`);
  const insertApiKey = sql.statement(insertOf(apiKeys, "api_keys", ["revokedAt", "lastUsedAt", "lastUsedIp", "requestCount"]));
  const apiKeysOf = sql.statement(`SELECT ${key.columns} FROM api_keys WHERE org_id = $orgId ORDER BY created_at DESC`, { decode: key.decode });
  const apiKeyById = sql.statement(`SELECT ${key.columns} FROM api_keys WHERE id = $id`, { decode: key.decode, lock: "update" });
  const revokeApiKey = sql.statement(`UPDATE api_keys SET revoked_at = $revokedAt WHERE id = $id AND revoked_at IS NULL`);
  const userByEmail = sql.statement(`SELECT ${user.columns} FROM users WHERE org_id = $orgId AND email = $email`, { decode: user.decode, lock: "update" });
  const userById = sql.statement(`SELECT ${user.columns} FROM users WHERE org_id = $orgId AND id = $id`, { decode: user.decode, lock: "update" });
  const insertUser = sql.statement(insertOf(users, "users"));
  const updateUser = sql.statement(`UPDATE users SET name = $name, role = $role, slack_user_id = $slackUserId WHERE org_id = $orgId AND id = $id`);
  const deleteUser = sql.statement(`DELETE FROM users WHERE org_id = $orgId AND id = $id`);
  const usersOf = sql.statement(`SELECT ${user.columns} FROM users WHERE org_id = $orgId ORDER BY created_at`, { decode: user.decode });
  const deleteUnusedInvites = sql.statement(`DELETE FROM invites WHERE user_id = $userId AND used_at IS NULL`);
  const insertInvite = sql.statement(insertOf(invites, "invites"));

  return {
    organizationBySlug: (slug: string): Flow<OrganizationRow | undefined> => organizationBySlug.get({ slug }),
    insertOrganization: (row: OrganizationRow) => insertOrganization.run(row),
    listOrganizations: (): Flow<OrganizationRow[]> => listOrganizations.all(),
    updateSettings: (row: Pick<OrganizationRow, "id" | "slackTokenEncrypted" | "launchRecapEnabled">) => updateSettings.run(row),

    insertApiKey: (row: Omit<ApiKeyRow, "revokedAt" | "lastUsedAt" | "lastUsedIp" | "requestCount">) => insertApiKey.run(row),
    apiKeysOf: (orgId: string): Flow<ApiKeyRow[]> => apiKeysOf.all({ orgId }),
    apiKeyById: (id: string): Flow<ApiKeyRow | undefined> => apiKeyById.get({ id }),
    revokeApiKey: (id: string, revokedAt: number) => revokeApiKey.run({ id, revokedAt }),

    userByEmail: (orgId: string, email: string): Flow<UserRow | undefined> => userByEmail.get({ orgId, email }),
    userById: (orgId: string, id: string): Flow<UserRow | undefined> => userById.get({ orgId, id }),
    insertUser: (row: UserRow) => insertUser.run(row),
    updateUser: (orgId: string, id: string, changes: Pick<UserRow, "name" | "role" | "slackUserId">) => updateUser.run({ orgId, id, ...changes }),
    deleteUser: (orgId: string, id: string) => deleteUser.run({ orgId, id }),
    usersOf: (orgId: string): Flow<UserRow[]> => usersOf.all({ orgId }),

    /** A new invite replaces the user's unused ones (the caller holds the transaction). */
    *replaceInvite(row: typeof invites.$inferSelect): Flow<void> {
      yield* deleteUnusedInvites.run({ userId: row.userId });
      yield* insertInvite.run(row);
    },
  };
}

export type WorkspacesStore = ReturnType<typeof createWorkspacesStore>;
