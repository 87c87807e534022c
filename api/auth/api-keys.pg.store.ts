import { eq, sql } from "drizzle-orm";
import { on, pgTransaction, statement, type PgDb } from "../../shared/db/postgres.ts";
import { apiKeys, authRevision, organizations } from "../../shared/db/schema.pg.ts";
import type { KeyRow, KeyUsageDelta } from "./api-keys.store.ts";

/**
 * The PostgreSQL adapter of the API-key store, with its SQLite twin's methods. A usage flush
 * adds its counts (`request_count + n`, never a read then a write), so flushes of any number of
 * API processes add up; keys are updated in id order so two flushes never wait on each other
 * in a cycle.
 */
export function createPgApiKeyStore(db: PgDb) {
  const revision = statement(db, "auth_revision", (on) => on.select({ revision: authRevision.revision }).from(authRevision).where(eq(authRevision.id, 1)));
  return {
    byHash: async (hash: string): Promise<KeyRow | null> =>
      (
        await on(db)
          .select({ keyId: apiKeys.id, keyName: apiKeys.name, keyPrefix: apiKeys.prefix, mode: apiKeys.mode, tier: apiKeys.rateLimitTier, revokedAt: apiKeys.revokedAt, orgId: apiKeys.orgId })
          .from(apiKeys)
          .where(eq(apiKeys.keyHash, hash))
      )[0] ?? null,
    /** Read on every request (exact revocation): built once. */
    revision: async (): Promise<number> => (await revision({}))[0]!.revision,
    workspace: async (orgId: string) => (await on(db).select({ slug: organizations.slug, name: organizations.name }).from(organizations).where(eq(organizations.id, orgId)))[0],
    addUsage: (batch: Iterable<[keyId: string, usage: KeyUsageDelta]>) =>
      pgTransaction(db, async () => {
        for (const [keyId, usage] of [...batch].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
          await on(db)
            .update(apiKeys)
            .set({
              requestCount: sql`${apiKeys.requestCount} + ${usage.count}`,
              lastUsedAt: sql`greatest(coalesce(${apiKeys.lastUsedAt}, 0), ${usage.lastUsedAt})`,
              lastUsedIp: sql`coalesce(${usage.lastUsedIp}, ${apiKeys.lastUsedIp})`,
            })
            .where(eq(apiKeys.id, keyId));
        }
      }),
  };
}
