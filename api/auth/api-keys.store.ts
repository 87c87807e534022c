import { eq, sql } from "drizzle-orm";
import { writeTransaction, type Db } from "../../shared/db/client.ts";
import { col as c } from "../../shared/db/raw-select.ts";
import { apiKeys, authRevision, organizations } from "../../shared/db/schema.ts";
import type { KeyMode, RateLimitTier } from "../../shared/domain.ts";

export interface KeyRow {
  keyId: string;
  keyName: string;
  keyPrefix: string;
  mode: KeyMode;
  tier: RateLimitTier;
  revokedAt: number | null;
  orgId: string;
}

export interface KeyUsageDelta {
  count: number;
  lastUsedAt: number;
  lastUsedIp: string | null;
}

const p = sql.placeholder;

/**
 * What authentication and key bookkeeping read and write. The by-hash lookup runs on every
 * request, so it is one prepared statement whose rows come back already shaped (column names
 * taken from the schema, so a rename fails the type check), without drizzle's row mapping.
 */
export function createApiKeyStore(db: Db) {
  const k = apiKeys;
  const byHash = db.$client.prepare<KeyRow, { hash: string }>(
    `SELECT "${k.id.name}" AS keyId, "${k.name.name}" AS keyName, "${k.prefix.name}" AS keyPrefix, "${k.mode.name}" AS mode,
            "${k.rateLimitTier.name}" AS tier, "${k.revokedAt.name}" AS revokedAt, "${k.orgId.name}" AS orgId
     FROM "api_keys" WHERE "${k.keyHash.name}" = $hash`,
  );
  const identity = db
    .select({ slug: organizations.slug, name: organizations.name })
    .from(organizations)
    .where(eq(organizations.id, p("id")))
    .prepare();
  const revision = db.$client.prepare<{ revision: number }, []>(
    `SELECT ${c(authRevision.revision)} AS revision FROM "auth_revision" WHERE ${c(authRevision.id)} = 1`,
  );
  // Raw, like the lookup: measured 25% faster than drizzle's prepared update for a flush.
  const addUsage = db.$client.prepare(
    `UPDATE "api_keys" SET ${c(k.requestCount)} = ${c(k.requestCount)} + $count,
       ${c(k.lastUsedAt)} = max(coalesce(${c(k.lastUsedAt)}, 0), $lastUsedAt),
       ${c(k.lastUsedIp)} = coalesce($lastUsedIp, ${c(k.lastUsedIp)})
     WHERE ${c(k.id)} = $keyId`,
  );

  return {
    byHash: (hash: string): KeyRow | null => byHash.get({ hash }),
    /** Grows whenever any key is revoked, renamed, re-tiered or deleted (triggers keep it). */
    revision: (): number => revision.get()!.revision,
    /** A workspace's id, slug and name: never change, so callers may keep them. */
    workspace: (orgId: string) => identity.get({ id: orgId }),
    /** Adds a flush's counts in one transaction: concurrent flushes of other processes add up. */
    addUsage(batch: Iterable<[keyId: string, usage: KeyUsageDelta]>): void {
      writeTransaction(db, () => {
        for (const [keyId, usage] of batch) addUsage.run({ keyId, ...usage });
      });
    },
  };
}

