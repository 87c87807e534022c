import type { Clock } from "../../shared/clock.ts";
import type { Transaction } from "../../shared/db/database.ts";
import { use, type Flow, type MaybePromise } from "../../shared/db/flow.ts";
import type { ApiStores } from "../stores.ts";
import { isDatabaseBusy } from "../../shared/db/busy.ts";
import { DomainError } from "../../shared/errors.ts";

export const IDEMPOTENCY_KEY_MAX_LENGTH = 255;
/** A claim this old belongs to a request that crashed: another request may take it over. */
export const CLAIM_TIMEOUT_MICROS = 60 * 1_000_000;
/** Stored responses are replayed for 24 hours, then purged. */
export const RETENTION_MICROS = 24 * 3600 * 1_000_000;

export type Claim = { kind: "claimed" } | { kind: "replay"; status: number; body: string };


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
export function createIdempotency(transaction: Transaction, store: ApiStores["idempotency"], clock: Clock) {
  /** Claims the key, or says why not: a replay, a different request, or one still running. */
  function* begin(apiKeyId: string, key: string, fingerprint: string): Flow<Claim> {
    return yield* transaction(function* (): Flow<Claim> {
      const now = clock.nowMicros();
      const ids = { apiKeyId, key };
      if (yield* use(store.claim(ids, fingerprint, now))) return { kind: "claimed" };
      const row = (yield* use(store.find(ids)))!;
      if (row.createdAt <= now - RETENTION_MICROS) {
        yield* use(store.remove(ids)); // expired but not yet purged: the key is new again
        yield* use(store.claim(ids, fingerprint, now));
        return { kind: "claimed" };
      }
      if (row.fingerprint !== fingerprint) {
        throw new DomainError(
          "idempotency_key_reused",
          "This Idempotency-Key was already used with a different request (method, path or body). Use a new key for a new operation.",
        );
      }
      if (row.completedAt !== null) {
        return { kind: "replay", status: row.responseStatus!, body: row.responseBody! };
      }
      if (row.claimedAt > now - CLAIM_TIMEOUT_MICROS) {
        throw new DomainError(
          "idempotency_key_in_use",
          "A request with this Idempotency-Key is still being processed. Retry after the Retry-After header's seconds.",
          undefined,
          1,
        );
      }
      yield* use(store.takeOver(ids, row.claimedAt, now));
      return { kind: "claimed" };
    });
  }

  return {
    begin,
    /**
     * Runs `produce` (whose own transaction nests inside this one) and stores its response in
     * the same transaction. A failure releases the claim so the key can be used again; only
     * successes are remembered. A database that is busy or unavailable is not a failure of the
     * request: the claim stays, for the caller to try again (or `release` when it gives up).
     */
    *execute(apiKeyId: string, key: string, status: number, produce: () => Flow<unknown>): Flow<string> {
      try {
        return yield* transaction(function* () {
          const body = JSON.stringify(yield* produce());
          yield* use(store.complete({ apiKeyId, key }, status, body, clock.nowMicros()));
          return body;
        });
      } catch (error) {
        if (!isDatabaseBusy(error) && !isUnavailable(error)) yield* use(store.release({ apiKeyId, key }));
        throw error;
      }
    },
    /** Frees an unfinished claim, so the key can be used again. */
    release: (apiKeyId: string, key: string): MaybePromise<unknown> => store.release({ apiKeyId, key }),
    /** Deletes stored responses past retention; answers how many. */
    purgeExpired: (): MaybePromise<number> => store.purgeBefore(clock.nowMicros() - RETENTION_MICROS),
  };
}

const isUnavailable = (error: unknown) => error instanceof DomainError && error.code === "service_unavailable";

export type Idempotency = ReturnType<typeof createIdempotency>;
