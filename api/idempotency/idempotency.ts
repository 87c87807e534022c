import type { Clock } from "../../shared/clock.ts";
import { writeTransaction, type Db } from "../../shared/db/client.ts";
import { isDatabaseBusy } from "../../shared/db/busy.ts";
import { DomainError } from "../../shared/errors.ts";

export const IDEMPOTENCY_KEY_MAX_LENGTH = 255;
/** A claim this old belongs to a request that crashed: another request may take it over. */
export const CLAIM_TIMEOUT_MICROS = 60 * 1_000_000;
/** Stored responses are replayed for 24 hours, then purged. */
export const RETENTION_MICROS = 24 * 3600 * 1_000_000;

export type Claim = { kind: "claimed" } | { kind: "replay"; status: number; body: string };

interface StoredRow {
  fingerprint: string;
  claimed_at: number;
  completed_at: number | null;
  response_status: number | null;
  response_body: string | null;
  created_at: number;
}

export function validateIdempotencyKey(value: string): string {
  if (value.length > IDEMPOTENCY_KEY_MAX_LENGTH) {
    throw new DomainError("too_big", `The Idempotency-Key header must be at most ${IDEMPOTENCY_KEY_MAX_LENGTH} characters.`, "Idempotency-Key");
  }
  if (value.trim() === "") throw new DomainError("too_small", "The Idempotency-Key header must not be empty.", "Idempotency-Key");
  return value;
}

/**
 * Idempotency keys, scoped to the API key. The stored response is written by `complete`
 * inside the transaction that creates the record, so a crash can never leave a record
 * without its stored response (or the reverse).
 */
export function createIdempotency(db: Db, clock: Clock) {
  const sqlite = db.$client;
  const claim = sqlite.prepare(
    `INSERT INTO idempotency_keys (api_key_id, key, fingerprint, claimed_at, created_at)
     VALUES ($apiKeyId, $key, $fingerprint, $now, $now) ON CONFLICT DO NOTHING`,
  );
  const find = sqlite.prepare<StoredRow, { apiKeyId: string; key: string }>(
    `SELECT fingerprint, claimed_at, completed_at, response_status, response_body, created_at
     FROM idempotency_keys WHERE api_key_id = $apiKeyId AND key = $key`,
  );
  const takeOver = sqlite.prepare(
    `UPDATE idempotency_keys SET claimed_at = $now
     WHERE api_key_id = $apiKeyId AND key = $key AND completed_at IS NULL AND claimed_at = $claimedAt`,
  );
  const remove = sqlite.prepare(`DELETE FROM idempotency_keys WHERE api_key_id = $apiKeyId AND key = $key`);
  const release = sqlite.prepare(
    `DELETE FROM idempotency_keys WHERE api_key_id = $apiKeyId AND key = $key AND completed_at IS NULL`,
  );
  const complete = sqlite.prepare(
    `UPDATE idempotency_keys SET completed_at = $now, response_status = $status, response_body = $body
     WHERE api_key_id = $apiKeyId AND key = $key`,
  );
  const purge = sqlite.prepare(`DELETE FROM idempotency_keys WHERE created_at < $cutoff`);

  /** Claims the key, or says why not: a replay, a different request, or one still running. */
  function begin(apiKeyId: string, key: string, fingerprint: string): Claim {
    return writeTransaction(db, () => {
      const now = clock.nowMicros();
      const ids = { apiKeyId, key };
      if (claim.run({ ...ids, fingerprint, now }).changes === 1) return { kind: "claimed" } as const;
      const row = find.get(ids)!;
      if (row.created_at <= now - RETENTION_MICROS) {
        remove.run(ids); // expired but not yet purged: the key is new again
        claim.run({ ...ids, fingerprint, now });
        return { kind: "claimed" } as const;
      }
      if (row.fingerprint !== fingerprint) {
        throw new DomainError(
          "idempotency_key_reused",
          "This Idempotency-Key was already used with a different request (method, path or body). Use a new key for a new operation.",
        );
      }
      if (row.completed_at !== null) {
        return { kind: "replay", status: row.response_status!, body: row.response_body! } as const;
      }
      if (row.claimed_at > now - CLAIM_TIMEOUT_MICROS) {
        throw new DomainError(
          "idempotency_key_in_use",
          "A request with this Idempotency-Key is still being processed. Retry after the Retry-After header's seconds.",
          undefined,
          1,
        );
      }
      takeOver.run({ ...ids, now, claimedAt: row.claimed_at });
      return { kind: "claimed" } as const;
    });
  }

  return {
    begin,
    /**
     * Runs `produce` (synchronous: the record's own transaction nests inside this one) and
     * stores its response in the same transaction. A failure releases the claim so the key
     * can be used again; only successes are remembered. A busy database is not a failure of
     * the request: the claim stays, for the caller to try again (or `release` when it gives up).
     */
    execute(apiKeyId: string, key: string, status: number, produce: () => unknown): string {
      try {
        return writeTransaction(db, () => {
          const body = JSON.stringify(produce());
          complete.run({ apiKeyId, key, now: clock.nowMicros(), status, body });
          return body;
        });
      } catch (error) {
        if (!isDatabaseBusy(error)) release.run({ apiKeyId, key });
        throw error;
      }
    },
    /** Frees an unfinished claim, so the key can be used again. */
    release(apiKeyId: string, key: string): void {
      release.run({ apiKeyId, key });
    },
    /** Deletes stored responses past retention; returns how many. */
    purgeExpired(): number {
      return purge.run({ cutoff: clock.nowMicros() - RETENTION_MICROS }).changes;
    },
  };
}

export type Idempotency = ReturnType<typeof createIdempotency>;
