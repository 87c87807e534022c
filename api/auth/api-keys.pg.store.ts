import { eq, sql } from "drizzle-orm";
import { pgTransaction, type PgDb } from "../../shared/db/postgres.ts";
import { apiKeys } from "../../shared/db/schema.pg.ts";
import type { KeyUsageDelta } from "./api-keys.store.ts";

/**
 * Key usage on PostgreSQL: each flush adds its counts (`request_count + n`, never a read then
 * a write), so flushes of any number of API processes add up; keys are updated in id order so
 * two flushes never wait on each other in a cycle.
 */
export const pgApiKeyStore = {
  addUsage: (db: PgDb, batch: Iterable<[keyId: string, usage: KeyUsageDelta]>) =>
    pgTransaction(db, async (tx) => {
      for (const [keyId, usage] of [...batch].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
        await tx
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
