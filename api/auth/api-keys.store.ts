import type { Transaction } from "../../shared/db/database.ts";
import type { Flow } from "../../shared/db/flow.ts";
import { decoder, type Sql } from "../../shared/db/sql.ts";
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

/** What authentication and key bookkeeping read and write; the by-hash lookup and the revision run on every request. */
export function createApiKeyStore(sql: Sql, transaction: Transaction) {
  const byHash = sql.statement<KeyRow>(
    `SELECT id AS "keyId", name AS "keyName", prefix AS "keyPrefix", mode, rate_limit_tier AS tier, revoked_at AS "revokedAt", org_id AS "orgId"
     FROM api_keys WHERE key_hash = $hash`,
    { decode: decoder({ revokedAt: "number" }) },
  );
  const identity = sql.statement<{ slug: string; name: string }>(`SELECT slug, name FROM organizations WHERE id = $id`);
  const revision = sql.statement<{ revision: number }>(`SELECT revision FROM auth_revision WHERE id = 1`);
  const addUsage = sql.statement(
    `UPDATE api_keys SET request_count = request_count + $count,
       last_used_at = CASE WHEN last_used_at IS NULL OR last_used_at < $lastUsedAt THEN $lastUsedAt ELSE last_used_at END,
       last_used_ip = coalesce($lastUsedIp, last_used_ip)
     WHERE id = $keyId`,
  );

  return {
    *byHash(hash: string): Flow<KeyRow | null> {
      return (yield* byHash.get({ hash })) ?? null;
    },
    /** Grows whenever any key is revoked, renamed, re-tiered or deleted (triggers keep it). */
    *revision(): Flow<number> {
      return (yield* revision.get())!.revision;
    },
    /** A workspace's slug and name: never change, so callers may keep them. */
    workspace: (orgId: string) => identity.get({ id: orgId }),
    /**
     * Adds a flush's counts in one transaction: concurrent flushes of other processes add up.
     * The updates are sent without waiting (one round trip for the batch on PostgreSQL).
     */
    addUsage: (batch: Iterable<[keyId: string, usage: KeyUsageDelta]>): Flow<void> =>
      transaction(function* () {
        for (const [keyId, usage] of batch) yield* addUsage.send({ keyId, ...usage });
      }),
  };
}
