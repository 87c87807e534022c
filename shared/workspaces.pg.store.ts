import { and, asc, desc, eq, isNull } from "drizzle-orm";
import { on, type PgDb } from "./db/postgres.ts";
import { apiKeys, invites, organizations, users } from "./db/schema.pg.ts";
import type { ApiKeyRow, OrganizationRow, UserRow } from "./db/schema.ts";

/** The PostgreSQL twin of workspaces.store.ts: the same functions, each awaiting its statement. */
export const pgWorkspaceStore = {
  organizationBySlug: async (db: PgDb, slug: string): Promise<OrganizationRow | undefined> => (await on(db).select().from(organizations).where(eq(organizations.slug, slug)))[0],
  insertOrganization: async (db: PgDb, row: typeof organizations.$inferInsert) => void (await on(db).insert(organizations).values(row)),
  listOrganizations: async (db: PgDb): Promise<OrganizationRow[]> => on(db).select().from(organizations).orderBy(asc(organizations.createdAt)),
  updateOrganization: async (db: PgDb, id: string, changes: Partial<typeof organizations.$inferInsert>) =>
    void (await on(db).update(organizations).set(changes).where(eq(organizations.id, id))),

  insertApiKey: async (db: PgDb, row: typeof apiKeys.$inferInsert) => void (await on(db).insert(apiKeys).values(row)),
  apiKeysOf: async (db: PgDb, orgId: string): Promise<ApiKeyRow[]> => on(db).select().from(apiKeys).where(eq(apiKeys.orgId, orgId)).orderBy(desc(apiKeys.createdAt)),
  apiKeyById: async (db: PgDb, id: string): Promise<ApiKeyRow | undefined> => (await on(db).select().from(apiKeys).where(eq(apiKeys.id, id)))[0],
  revokeApiKey: async (db: PgDb, id: string, revokedAt: number) => void (await on(db).update(apiKeys).set({ revokedAt }).where(eq(apiKeys.id, id))),

  userByEmail: async (db: PgDb, orgId: string, email: string): Promise<UserRow | undefined> =>
    (await on(db).select().from(users).where(and(eq(users.orgId, orgId), eq(users.email, email))))[0],
  userById: async (db: PgDb, orgId: string, id: string): Promise<UserRow | undefined> => (await on(db).select().from(users).where(and(eq(users.orgId, orgId), eq(users.id, id))))[0],
  insertUser: async (db: PgDb, row: typeof users.$inferInsert) => void (await on(db).insert(users).values(row)),
  updateUser: async (db: PgDb, orgId: string, id: string, changes: Pick<UserRow, "name" | "role" | "slackUserId">) =>
    void (await on(db).update(users).set(changes).where(and(eq(users.orgId, orgId), eq(users.id, id)))),
  deleteUser: async (db: PgDb, orgId: string, id: string) => void (await on(db).delete(users).where(and(eq(users.orgId, orgId), eq(users.id, id)))),
  usersOf: async (db: PgDb, orgId: string): Promise<UserRow[]> => on(db).select().from(users).where(eq(users.orgId, orgId)).orderBy(asc(users.createdAt)),

  /** A new invite replaces the user's unused ones. */
  replaceInvite: async (db: PgDb, row: typeof invites.$inferInsert) => {
    await on(db).delete(invites).where(and(eq(invites.userId, row.userId), isNull(invites.usedAt)));
    await on(db).insert(invites).values(row);
  },
};
