import { generateApiKey } from "./api-keys.ts";
import type { Clock } from "./clock.ts";
import type { Database } from "./db/database.ts";
import { use, type Flow, type MaybePromise } from "./db/flow.ts";
import type { ApiKeyRow, OrganizationRow, UserRole, UserRow } from "./db/schema.ts";
import { createWorkspacesStore, type WorkspacesStore } from "./workspaces.store.ts";
import { encryptSecret } from "./secrets.ts";
import { EMAIL_PATTERN, RATE_LIMIT_TIERS, SLUG_MAX_LENGTH, SLUG_PATTERN, type KeyMode, type RateLimitTier } from "./domain.ts";
import { newId } from "./ids.ts";

/** An operator's mistake (unknown workspace, taken slug): reported, never a crash. */
export class OperatorError extends Error {
  override name = "OperatorError";
}

const SLUG = new RegExp(SLUG_PATTERN);

const built = new WeakMap<Database, WorkspacesStore>();

/** The workspace statements over an open database, prepared once per database. */
export function storeOf(database: Database): WorkspacesStore {
  let store = built.get(database);
  if (!store) built.set(database, (store = createWorkspacesStore(database.sql)));
  return store;
}

/*
 * Every function here is a flow (shared/db/flow.ts): the command line runs it with `run`, the
 * admin area inside its own flows, on either engine.
 */

export function* createWorkspace(database: Database, clock: Clock, input: { slug: string; name: string }): Flow<OrganizationRow> {
  if (!SLUG.test(input.slug) || input.slug.length > SLUG_MAX_LENGTH) {
    throw new OperatorError(`--slug must be lowercase letters and digits joined by single hyphens, at most 64 characters (got '${input.slug}').`);
  }
  const name = input.name.trim();
  if (name === "" || name.length > 200) throw new OperatorError("--name must be 1 to 200 characters.");
  const store = storeOf(database);
  return yield* database.transaction(function* () {
    if (yield* store.organizationBySlug(input.slug)) {
      throw new OperatorError(`A workspace with slug '${input.slug}' already exists.`);
    }
    const row = { id: newId("org"), slug: input.slug, name, launchRecapEnabled: false, slackTokenEncrypted: null, createdAt: clock.nowMicros() };
    yield* store.insertOrganization(row);
    return row;
  });
}

export function* listWorkspaces(database: Database): Flow<OrganizationRow[]> {
  return yield* storeOf(database).listOrganizations();
}

export function* findWorkspace(database: Database, slug: string): Flow<OrganizationRow> {
  const org = yield* storeOf(database).organizationBySlug(slug);
  if (!org) throw new OperatorError(`No workspace with slug '${slug}'.`);
  return org;
}

export function* createApiKey(
  database: Database,
  clock: Clock,
  input: { workspaceSlug: string; name: string; mode: KeyMode; tier: RateLimitTier; createdBy?: string | null },
) {
  const name = input.name.trim();
  if (name === "" || name.length > 100) throw new OperatorError("--name must be 1 to 100 characters.");
  if (!RATE_LIMIT_TIERS.includes(input.tier)) throw new OperatorError(`--tier must be one of ${RATE_LIMIT_TIERS.join(", ")}.`);
  const org = yield* findWorkspace(database, input.workspaceSlug);
  const { key, prefix, hash } = generateApiKey(input.mode);
  const row = {
    id: newId("key"),
    orgId: org.id,
    name,
    prefix,
    keyHash: hash,
    mode: input.mode,
    rateLimitTier: input.tier,
    createdAt: clock.nowMicros(),
    createdBy: input.createdBy ?? null,
  };
  yield* storeOf(database).insertApiKey(row);
  return { row, key, org };
}

export function* listApiKeys(database: Database, workspaceSlug: string): Flow<ApiKeyRow[]> {
  const org = yield* findWorkspace(database, workspaceSlug);
  return yield* storeOf(database).apiKeysOf(org.id);
}

/** Takes effect on the key's next request: authentication reads the row every time. */
export function* revokeApiKey(database: Database, clock: Clock, keyId: string): Flow<ApiKeyRow> {
  const store = storeOf(database);
  const key = yield* store.apiKeyById(keyId);
  if (!key) throw new OperatorError(`No API key with id '${keyId}'.`);
  if (key.revokedAt !== null) return key;
  const revokedAt = clock.nowMicros();
  yield* store.revokeApiKey(keyId, revokedAt);
  return { ...key, revokedAt };
}

export const USER_ROLES: readonly UserRole[] = ["admin", "member"];
const SLACK_USER_ID = /^[UW][A-Z0-9]{2,}$/;

function checkUserFields(input: { name: string; email: string; slackUserId?: string | null | undefined; role?: string | undefined }) {
  const name = input.name.trim();
  if (name === "" || name.length > 200) throw new OperatorError("--name must be 1 to 200 characters.");
  if (!EMAIL_PATTERN.test(input.email) || input.email.length > 254) throw new OperatorError(`--email must be an e-mail address (got '${input.email}').`);
  if (input.slackUserId !== undefined && input.slackUserId !== null && !SLACK_USER_ID.test(input.slackUserId)) {
    throw new OperatorError(`--slack-user-id must look like a Slack member id such as U0123ABCD (got '${input.slackUserId}').`);
  }
  if (input.role !== undefined && !USER_ROLES.includes(input.role as UserRole)) throw new OperatorError(`--role must be admin or member (got '${input.role}').`);
  return name;
}

/**
 * A person of the workspace: a CSM or another assignee an onboarding can name by id, or an
 * administrator of the workspace's admin area (`role: admin`). E-mail addresses are unique
 * within a workspace, since administrators sign in with theirs.
 */
export function* addUser(
  database: Database,
  clock: Clock,
  input: { workspaceSlug: string; name: string; email: string; slackUserId?: string | undefined; role?: UserRole | undefined },
) {
  const store = storeOf(database);
  const org = yield* findWorkspace(database, input.workspaceSlug);
  const name = checkUserFields(input);
  const email = input.email.trim().toLowerCase();
  if (yield* store.userByEmail(org.id, email)) {
    throw new OperatorError(`A user with e-mail '${email}' already exists in this workspace.`);
  }
  const row = {
    id: newId("usr"),
    orgId: org.id,
    name,
    email,
    slackUserId: input.slackUserId ?? null,
    createdAt: clock.nowMicros(),
    role: input.role ?? "member",
    passwordHash: null,
  };
  yield* store.insertUser(row);
  return row;
}

export function* findUserByEmail(database: Database, workspaceSlug: string, email: string): Flow<UserRow> {
  const org = yield* findWorkspace(database, workspaceSlug);
  const user = yield* storeOf(database).userByEmail(org.id, email.trim().toLowerCase());
  if (!user) throw new OperatorError(`No user with e-mail '${email}' in workspace '${workspaceSlug}'.`);
  return user;
}

/** Name, role and Slack id of one user of one workspace. A user who stops being an admin loses their sessions. */
export function* updateUser(database: Database, orgId: string, userId: string, input: { name: string; role: UserRole; slackUserId: string | null }): Flow<UserRow> {
  const store = storeOf(database);
  const user = yield* store.userById(orgId, userId);
  if (!user) throw new OperatorError("No such user in this workspace.");
  const name = checkUserFields({ name: input.name, email: user.email, slackUserId: input.slackUserId, role: input.role });
  yield* store.updateUser(orgId, userId, { name, role: input.role, slackUserId: input.slackUserId });
  return { ...user, name, role: input.role, slackUserId: input.slackUserId };
}

/** Removes a user of one workspace; their sessions and invites go with the row (foreign keys cascade). */
export function* removeUser(database: Database, orgId: string, userId: string): Flow<UserRow> {
  const store = storeOf(database);
  const user = yield* store.userById(orgId, userId);
  if (!user) throw new OperatorError("No such user in this workspace.");
  yield* store.deleteUser(orgId, userId);
  return user;
}

export function* listUsers(database: Database, workspaceSlug: string): Flow<UserRow[]> {
  const org = yield* findWorkspace(database, workspaceSlug);
  return yield* storeOf(database).usersOf(org.id);
}

/** Workspace settings: the Slack token (sealed with SECRET_KEY) and the launch-recap switch. */
export function* updateWorkspace(
  database: Database,
  input: { slug: string; slackToken?: string | undefined; launchRecap?: boolean | undefined; secretKey: string | null },
) {
  const org = yield* findWorkspace(database, input.slug);
  const changes: Partial<Pick<OrganizationRow, "slackTokenEncrypted" | "launchRecapEnabled">> = {};
  if (input.slackToken !== undefined) {
    if (input.slackToken === "") {
      changes.slackTokenEncrypted = null;
    } else {
      if (!input.secretKey) throw new OperatorError("SECRET_KEY is not set: it is needed to store a Slack token (npm start generates one under DATA_DIR).");
      changes.slackTokenEncrypted = encryptSecret(input.secretKey, input.slackToken);
    }
  }
  if (input.launchRecap !== undefined) changes.launchRecapEnabled = input.launchRecap;
  if (Object.keys(changes).length === 0) throw new OperatorError("Nothing to update: give --slack-token and/or --launch-recap on|off.");
  const next = { ...org, ...changes };
  yield* storeOf(database).updateSettings(next);
  return next;
}
