import type { Flow } from "../../shared/db/flow.ts";
import { decoder, type Sql } from "../../shared/db/sql.ts";

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
 * Idempotency keys: claimed by inserting on the primary key, never select-then-insert. Of any
 * number of processes claiming one key at once exactly one inserts; the others wait for its
 * transaction (PostgreSQL's row lock, SQLite's write lock) and then see the key taken. `find`
 * locks the row for the rest of the transaction.
 */
export function createIdempotencyStore(sql: Sql) {
  const scope = "api_key_id = $apiKeyId AND key = $key";
  const claim = sql.statement(
    `INSERT INTO idempotency_keys (api_key_id, key, fingerprint, claimed_at, created_at) VALUES ($apiKeyId, $key, $fingerprint, $now, $now) ON CONFLICT DO NOTHING`,
  );
  const find = sql.statement<StoredClaim>(
    `SELECT fingerprint, claimed_at AS "claimedAt", completed_at AS "completedAt", response_status AS "responseStatus",
            response_body AS "responseBody", created_at AS "createdAt"
     FROM idempotency_keys WHERE ${scope}`,
    { decode: decoder({ claimedAt: "number", completedAt: "number", responseStatus: "number", createdAt: "number" }), lock: "update" },
  );
  const takeOver = sql.statement(`UPDATE idempotency_keys SET claimed_at = $now WHERE ${scope} AND completed_at IS NULL AND claimed_at = $claimedAt`);
  const remove = sql.statement(`DELETE FROM idempotency_keys WHERE ${scope}`);
  const release = sql.statement(`DELETE FROM idempotency_keys WHERE ${scope} AND completed_at IS NULL`);
  const complete = sql.statement(`UPDATE idempotency_keys SET completed_at = $now, response_status = $status, response_body = $body WHERE ${scope}`);
  const purge = sql.statement(`DELETE FROM idempotency_keys WHERE created_at < $cutoff`);

  return {
    /** True when this call inserted the claim. */
    *claim(ids: Ids, fingerprint: string, now: number): Flow<boolean> {
      return (yield* claim.run({ ...ids, fingerprint, now })) === 1;
    },
    find: (ids: Ids) => find.get(ids),
    *takeOver(ids: Ids, claimedAt: number, now: number): Flow<boolean> {
      return (yield* takeOver.run({ ...ids, claimedAt, now })) === 1;
    },
    remove: (ids: Ids) => remove.run(ids),
    release: (ids: Ids) => release.run(ids),
    /** Stores the response: sent without waiting (`Statement.send`), it travels with the change's last writes. */
    complete: (ids: Ids, status: number, body: string, now: number) => complete.send({ ...ids, status, body, now }),
    /** Deletes stored responses created before `cutoff`; answers how many. */
    purgeBefore: (cutoff: number) => purge.run({ cutoff }),
  };
}
