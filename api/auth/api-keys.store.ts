import type { Transaction } from "../../shared/db/database.ts";
import type { Flow } from "../../shared/db/flow.ts";
import { decoder, jsonList, jsonRows, type Sql } from "../../shared/db/sql.ts";
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
  // The row's id as a parameter, not in the text: on PostgreSQL a statement without parameters
  // goes by the simple protocol, parsed and planned on every call, and this one runs for every
  // request that follows a change of keys.
  const revision = sql.statement<{ revision: number }>(`SELECT revision FROM auth_revision WHERE id = $id`);
  // A flush's keys in one statement. One UPDATE per key cost PostgreSQL 52–64 µs a key (1,000
  // keys; 69–84 with 10,000), this one 14–20 (40–44): a key's usage is written about once a
  // second while it is in use, so with the load spread over many keys that was ~10 µs of
  // PostgreSQL's CPU a request (bench/RESULTS.md, #26's twelfth pass). The rows are found
  // through the key's index (`oneOf`): joined to the list alone, PostgreSQL's generic plan
  // scans the table (see `Sql.oneOf`). The list is MATERIALIZED: SQLite otherwise reads it
  // again, JSON and all, for every key the index finds (130 µs a key against 7–9).
  const addUsage = sql.statement(
    `WITH delta AS MATERIALIZED (SELECT * FROM ${sql.rowSet("d", { keyId: "text", count: "integer", lastUsedAt: "integer", lastUsedIp: "text" })})
     UPDATE api_keys SET request_count = request_count + delta."count",
       last_used_at = CASE WHEN last_used_at IS NULL OR last_used_at < delta."lastUsedAt" THEN delta."lastUsedAt" ELSE last_used_at END,
       last_used_ip = coalesce(delta."lastUsedIp", last_used_ip)
     FROM delta
     WHERE api_keys.id = delta."keyId" AND ${sql.oneOf("api_keys.id", "keys")}`,
  );

  return {
    *byHash(hash: string): Flow<KeyRow | null> {
      return (yield* byHash.get({ hash })) ?? null;
    },
    /** Grows whenever any key is revoked, renamed, re-tiered or deleted (triggers keep it). */
    *revision(): Flow<number> {
      return (yield* revision.get({ id: 1 }))!.revision;
    },
    /** A workspace's slug and name: never change, so callers may keep them. */
    workspace: (orgId: string) => identity.get({ id: orgId }),
    /**
     * Adds a flush's counts with one statement: concurrent flushes of other processes add up.
     * In key order, so that two of them lock their common keys in the same order.
     */
    addUsage(batch: Iterable<[keyId: string, usage: KeyUsageDelta]>): Flow<void> {
      const rows = [...batch].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([keyId, usage]) => ({ keyId, ...usage }));
      return transaction(function* () {
        if (rows.length > 0) yield* addUsage.run({ d: jsonRows(rows), keys: jsonList(rows.map((row) => row.keyId)) });
      });
    },
  };
}
