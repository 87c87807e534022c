import type { Flow } from "../../shared/db/flow.ts";
import { decoder, insertRows, jsonRows, type Sql } from "../../shared/db/sql.ts";

export interface StoredClaim {
  fingerprint: string;
  claimedAt: number;
  completedAt: number | null;
  responseStatus: number | null;
  responseBody: string | null;
  createdAt: number;
}

type Ids = { apiKeyId: string; key: string };
/** A stored response of a batch, as `completeMany` writes it. */
type Completed = Ids & { body: string; status: number; now: number };
/**
 * Its columns. Only the last three are written: the row is the batch's own claim, so the
 * upsert always conflicts and keeps the claim's fingerprint and instants.
 */
const COMPLETED = {
  api_key_id: (row: Completed) => row.apiKeyId,
  key: (row: Completed) => row.key,
  fingerprint: () => "",
  claimed_at: (row: Completed) => row.now,
  created_at: (row: Completed) => row.now,
  completed_at: (row: Completed) => row.now,
  response_status: (row: Completed) => row.status,
  response_body: (row: Completed) => row.body,
};
/** A claim of a batch of changes made together (api/http/together.ts). */
export type BatchClaim = Ids & { fingerprint: string };

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
  // A batch's claims in one statement, in key order: two batches (of two processes) that claim
  // keys in common take them in the same order, so neither holds one the other waits for.
  const claimMany = sql.statement<Ids>(
    `INSERT INTO idempotency_keys (api_key_id, key, fingerprint, claimed_at, created_at)
     SELECT claims."apiKeyId", claims."key", claims."fingerprint", CAST($now AS BIGINT), CAST($now AS BIGINT)
     FROM ${sql.rowSet("claims", { apiKeyId: "text", key: "text", fingerprint: "text" })} WHERE true ORDER BY claims."apiKeyId", claims."key"
     ON CONFLICT DO NOTHING RETURNING api_key_id AS "apiKeyId", key`,
  );
  // An upsert on the primary key, not an UPDATE … FROM the rows: the claims were inserted by this
  // transaction, so every row conflicts and is found through the key's index whatever the
  // planner thinks of the table. An UPDATE joined to the rows was planned as a hash join over
  // the whole table when the table was small, and kept (a prepared statement's generic plan):
  // a sequential scan of every stored response per batch. Rows written together
  // (`insertRows`), each body a text parameter of its own: as one JSON parameter, every body
  // was escaped again by JSON.stringify and parsed back by the database.
  const completeMany = insertRows(
    sql,
    "idempotency_keys",
    Object.keys(COMPLETED),
    (row: Completed, column) => COMPLETED[column as keyof typeof COMPLETED](row),
    "ON CONFLICT (api_key_id, key) DO UPDATE SET completed_at = excluded.completed_at, response_status = excluded.response_status, response_body = excluded.response_body",
  );
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
    /**
     * Claims a batch's keys at once; answers, claim by claim, whether this call took it (not:
     * the key is another request's, committed or in flight elsewhere, whose transaction was
     * waited for).
     */
    *claimMany(claims: readonly BatchClaim[], now: number): Flow<boolean[]> {
      if (claims.length === 0) return [];
      const taken = new Set((yield* claimMany.all({ claims: jsonRows(claims), now })).map((row) => `${row.apiKeyId} ${row.key}`));
      return claims.map((claim) => taken.has(`${claim.apiKeyId} ${claim.key}`));
    },
    /** Stores a batch's responses (one status), sent without waiting like `complete`. */
    *completeMany(done: readonly (Ids & { body: string })[], status: number, now: number): Flow<void> {
      if (done.length > 0) yield* completeMany.send(done.map((row) => ({ ...row, status, now })));
    },
    /** Deletes stored responses created before `cutoff`; answers how many. */
    purgeBefore: (cutoff: number) => purge.run({ cutoff }),
  };
}
