import type { Db } from "../../shared/db/client.ts";
import { col as c } from "../../shared/db/raw-select.ts";
import { idempotencyKeys as t } from "../../shared/db/schema.ts";

export interface StoredClaim {
  fingerprint: string;
  claimedAt: number;
  completedAt: number | null;
  responseStatus: number | null;
  responseBody: string | null;
  createdAt: number;
}

type Ids = { apiKeyId: string; key: string };

/**
 * Idempotency keys: claimed by inserting on the primary key, never select-then-insert. Raw
 * prepared statements (every POST with an Idempotency-Key runs them) whose column names come
 * from the schema.
 */
export function createIdempotencyStore(db: Db) {
  const sqlite = db.$client;
  const scope = `${c(t.apiKeyId)} = $apiKeyId AND ${c(t.key)} = $key`;
  const claim = sqlite.prepare(
    `INSERT INTO "idempotency_keys" (${c(t.apiKeyId)}, ${c(t.key)}, ${c(t.fingerprint)}, ${c(t.claimedAt)}, ${c(t.createdAt)})
     VALUES ($apiKeyId, $key, $fingerprint, $now, $now) ON CONFLICT DO NOTHING`,
  );
  const find = sqlite.prepare<StoredClaim, Ids>(
    `SELECT ${c(t.fingerprint)} AS fingerprint, ${c(t.claimedAt)} AS claimedAt, ${c(t.completedAt)} AS completedAt,
            ${c(t.responseStatus)} AS responseStatus, ${c(t.responseBody)} AS responseBody, ${c(t.createdAt)} AS createdAt
     FROM "idempotency_keys" WHERE ${scope}`,
  );
  const takeOver = sqlite.prepare(
    `UPDATE "idempotency_keys" SET ${c(t.claimedAt)} = $now WHERE ${scope} AND ${c(t.completedAt)} IS NULL AND ${c(t.claimedAt)} = $claimedAt`,
  );
  const remove = sqlite.prepare(`DELETE FROM "idempotency_keys" WHERE ${scope}`);
  const release = sqlite.prepare(`DELETE FROM "idempotency_keys" WHERE ${scope} AND ${c(t.completedAt)} IS NULL`);
  const complete = sqlite.prepare(
    `UPDATE "idempotency_keys" SET ${c(t.completedAt)} = $now, ${c(t.responseStatus)} = $status, ${c(t.responseBody)} = $body WHERE ${scope}`,
  );
  const purge = sqlite.prepare(`DELETE FROM "idempotency_keys" WHERE ${c(t.createdAt)} < $cutoff`);

  return {
    /** True when this call inserted the claim. */
    claim: (ids: Ids, fingerprint: string, now: number): boolean => claim.run({ ...ids, fingerprint, now }).changes === 1,
    find: (ids: Ids): StoredClaim | undefined => find.get(ids) ?? undefined,
    takeOver: (ids: Ids, claimedAt: number, now: number): boolean => takeOver.run({ ...ids, claimedAt, now }).changes === 1,
    remove: (ids: Ids) => void remove.run(ids),
    release: (ids: Ids) => void release.run(ids),
    complete: (ids: Ids, status: number, body: string, now: number) => void complete.run({ ...ids, status, body, now }),
    purgeBefore: (cutoff: number): number => purge.run({ cutoff }).changes,
  };
}

