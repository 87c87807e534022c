import { and, asc, desc, eq, isNull } from "drizzle-orm";
import type { Db } from "./db/client.ts";
import { apiKeys, invites, organizations, users, type ApiKeyRow, type OrganizationRow, type UserRow } from "./db/schema.ts";

/**
 * Workspaces, their API keys, users and invites: the statements of the operator's command
 * line and the admin area's account management (shared/workspaces.ts decides, this reads and writes).
 */
export const workspaceStore = {
  organizationBySlug: (db: Db, slug: string): OrganizationRow | undefined => db.select().from(organizations).where(eq(organizations.slug, slug)).get(),
  insertOrganization: (db: Db, row: typeof organizations.$inferInsert) => void db.insert(organizations).values(row).run(),
  listOrganizations: (db: Db) => db.select().from(organizations).orderBy(asc(organizations.createdAt)).all(),
  updateOrganization: (db: Db, id: string, changes: Partial<typeof organizations.$inferInsert>) =>
    void db.update(organizations).set(changes).where(eq(organizations.id, id)).run(),

  insertApiKey: (db: Db, row: typeof apiKeys.$inferInsert) => void db.insert(apiKeys).values(row).run(),
  apiKeysOf: (db: Db, orgId: string): ApiKeyRow[] => db.select().from(apiKeys).where(eq(apiKeys.orgId, orgId)).orderBy(desc(apiKeys.createdAt)).all(),
  apiKeyById: (db: Db, id: string): ApiKeyRow | undefined => db.select().from(apiKeys).where(eq(apiKeys.id, id)).get(),
  revokeApiKey: (db: Db, id: string, revokedAt: number) => void db.update(apiKeys).set({ revokedAt }).where(eq(apiKeys.id, id)).run(),

  userByEmail: (db: Db, orgId: string, email: string): UserRow | undefined =>
    db.select().from(users).where(and(eq(users.orgId, orgId), eq(users.email, email))).get(),
  userById: (db: Db, orgId: string, id: string): UserRow | undefined => db.select().from(users).where(and(eq(users.orgId, orgId), eq(users.id, id))).get(),
  insertUser: (db: Db, row: typeof users.$inferInsert) => void db.insert(users).values(row).run(),
  updateUser: (db: Db, orgId: string, id: string, changes: Pick<UserRow, "name" | "role" | "slackUserId">) =>
    void db.update(users).set(changes).where(and(eq(users.orgId, orgId), eq(users.id, id))).run(),
  deleteUser: (db: Db, orgId: string, id: string) => void db.delete(users).where(and(eq(users.orgId, orgId), eq(users.id, id))).run(),
  usersOf: (db: Db, orgId: string): UserRow[] => db.select().from(users).where(eq(users.orgId, orgId)).orderBy(asc(users.createdAt)).all(),

  /** A new invite replaces the user's unused ones. */
  replaceInvite: (db: Db, row: typeof invites.$inferInsert) => {
    db.delete(invites).where(and(eq(invites.userId, row.userId), isNull(invites.usedAt))).run();
    db.insert(invites).values(row).run();
  },
};
