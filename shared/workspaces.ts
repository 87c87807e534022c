import { asc, desc, eq } from "drizzle-orm";
import { generateApiKey } from "./api-keys.ts";
import type { Clock } from "./clock.ts";
import { writeTransaction, type Db } from "./db/client.ts";
import { apiKeys, organizations, users } from "./db/schema.ts";
import { encryptSecret } from "./secrets.ts";
import { EMAIL_PATTERN, RATE_LIMIT_TIERS, SLUG_MAX_LENGTH, SLUG_PATTERN, type KeyMode, type RateLimitTier } from "./domain.ts";
import { newId } from "./ids.ts";

/** An operator's mistake (unknown workspace, taken slug): reported, never a crash. */
export class OperatorError extends Error {
  override name = "OperatorError";
}

const SLUG = new RegExp(SLUG_PATTERN);

export function createWorkspace(db: Db, clock: Clock, input: { slug: string; name: string }) {
  if (!SLUG.test(input.slug) || input.slug.length > SLUG_MAX_LENGTH) {
    throw new OperatorError(`--slug must be lowercase letters and digits joined by single hyphens, at most 64 characters (got '${input.slug}').`);
  }
  const name = input.name.trim();
  if (name === "" || name.length > 200) throw new OperatorError("--name must be 1 to 200 characters.");
  return writeTransaction(db, () => {
    if (db.select({ id: organizations.id }).from(organizations).where(eq(organizations.slug, input.slug)).get()) {
      throw new OperatorError(`A workspace with slug '${input.slug}' already exists.`);
    }
    const row = { id: newId("org"), slug: input.slug, name, launchRecapEnabled: false, slackTokenEncrypted: null, createdAt: clock.nowMicros() };
    db.insert(organizations).values(row).run();
    return row;
  });
}

export const listWorkspaces = (db: Db) => db.select().from(organizations).orderBy(asc(organizations.createdAt)).all();

export function findWorkspace(db: Db, slug: string) {
  const org = db.select().from(organizations).where(eq(organizations.slug, slug)).get();
  if (!org) throw new OperatorError(`No workspace with slug '${slug}'.`);
  return org;
}

export function createApiKey(
  db: Db,
  clock: Clock,
  input: { workspaceSlug: string; name: string; mode: KeyMode; tier: RateLimitTier },
) {
  const name = input.name.trim();
  if (name === "" || name.length > 100) throw new OperatorError("--name must be 1 to 100 characters.");
  if (!RATE_LIMIT_TIERS.includes(input.tier)) throw new OperatorError(`--tier must be one of ${RATE_LIMIT_TIERS.join(", ")}.`);
  const org = findWorkspace(db, input.workspaceSlug);
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
  };
  db.insert(apiKeys).values(row).run();
  return { row, key, org };
}

export function listApiKeys(db: Db, workspaceSlug: string) {
  const org = findWorkspace(db, workspaceSlug);
  return db.select().from(apiKeys).where(eq(apiKeys.orgId, org.id)).orderBy(desc(apiKeys.createdAt)).all();
}

/** Takes effect on the key's next request: authentication reads the row every time. */
export function revokeApiKey(db: Db, clock: Clock, keyId: string) {
  const key = db.select().from(apiKeys).where(eq(apiKeys.id, keyId)).get();
  if (!key) throw new OperatorError(`No API key with id '${keyId}'.`);
  if (key.revokedAt !== null) return key;
  const revokedAt = clock.nowMicros();
  db.update(apiKeys).set({ revokedAt }).where(eq(apiKeys.id, keyId)).run();
  return { ...key, revokedAt };
}

/** A person of the workspace: a CSM or another assignee an onboarding can name by id. */
export function addUser(db: Db, clock: Clock, input: { workspaceSlug: string; name: string; email: string; slackUserId?: string | undefined }) {
  const org = findWorkspace(db, input.workspaceSlug);
  const name = input.name.trim();
  if (name === "" || name.length > 200) throw new OperatorError("--name must be 1 to 200 characters.");
  if (!EMAIL_PATTERN.test(input.email)) throw new OperatorError(`--email must be an e-mail address (got '${input.email}').`);
  if (input.slackUserId !== undefined && !/^[UW][A-Z0-9]{2,}$/.test(input.slackUserId)) {
    throw new OperatorError(`--slack-user-id must look like a Slack member id such as U0123ABCD (got '${input.slackUserId}').`);
  }
  const row = { id: newId("usr"), orgId: org.id, name, email: input.email, slackUserId: input.slackUserId ?? null, createdAt: clock.nowMicros() };
  db.insert(users).values(row).run();
  return row;
}

export function listUsers(db: Db, workspaceSlug: string) {
  const org = findWorkspace(db, workspaceSlug);
  return db.select().from(users).where(eq(users.orgId, org.id)).orderBy(asc(users.createdAt)).all();
}

/** Workspace settings: the Slack token (sealed with SECRET_KEY) and the launch-recap switch. */
export function updateWorkspace(
  db: Db,
  input: { slug: string; slackToken?: string | undefined; launchRecap?: boolean | undefined; secretKey: string | null },
) {
  const org = findWorkspace(db, input.slug);
  const changes: Partial<typeof organizations.$inferInsert> = {};
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
  db.update(organizations).set(changes).where(eq(organizations.id, org.id)).run();
  return { ...org, ...changes };
}
