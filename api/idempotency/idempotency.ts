import type { Clock } from "../../shared/clock.ts";
import type { Transaction } from "../../shared/db/database.ts";
import { run, type Flow, type MaybePromise } from "../../shared/db/flow.ts";
import type { ApiStores } from "../stores.ts";
import { isDatabaseBusy } from "../../shared/db/busy.ts";
import { DomainError } from "../../shared/errors.ts";

export const IDEMPOTENCY_KEY_MAX_LENGTH = 255;
/**
 * An unfinished claim this old belongs to a request that crashed: another request may take it
 * over. Only `begin` commits unfinished claims (`perform` commits the claim with the record).
 */
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

/** What `perform` answers: the stored response of an earlier success, or this request's own. */
export type Outcome = { kind: "replay"; status: number; body: string } | { kind: "done"; body: string };

const inUse = () =>
  new DomainError(
    "idempotency_key_in_use",
    "A request with this Idempotency-Key is still being processed. Retry after the Retry-After header's seconds.",
    undefined,
    1,
  );

/**
 * Idempotency keys, scoped to the API key. A create with a key commits once (`perform`): the
 * claim, the change and its stored response are one transaction, so a crash or a failure
 * leaves nothing of the key behind, and a committed record always has its stored response.
 *
 * Since an unfinished claim is never committed, other requests cannot see it in the database:
 * within a process, requests in flight are known in memory (`enter`); across processes the
 * primary key decides (the second insert waits for the first transaction, then sees its row:
 * on PostgreSQL the row lock, on SQLite the write lock held for the whole transaction).
 */
export function createIdempotency(transaction: Transaction, store: ApiStores["idempotency"], clock: Clock) {
  /** This process's requests in flight, by API key id and Idempotency-Key. */
  const inFlight = new Set<string>();

  /**
   * Inside a transaction: claims the key, or says why not (a replay, a different request, or a
   * claim still running). A committed unfinished claim comes only from `begin` (a process of an
   * earlier version during a rolling deploy, or a test); it is honoured as before.
   */
  function* claimIn(apiKeyId: string, key: string, fingerprint: string): Flow<Claim> {
    const now = clock.nowMicros();
    const ids = { apiKeyId, key };
    if (yield* store.claim(ids, fingerprint, now)) return { kind: "claimed" };
    const row = (yield* store.find(ids))!;
    if (row.createdAt <= now - RETENTION_MICROS) {
      yield* store.remove(ids); // expired but not yet purged: the key is new again
      yield* store.claim(ids, fingerprint, now);
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
    if (row.claimedAt > now - CLAIM_TIMEOUT_MICROS) throw inUse();
    yield* store.takeOver(ids, row.claimedAt, now);
    return { kind: "claimed" };
  }

  return {
    /**
     * Marks the key in flight in this process and answers the function that unmarks it (call
     * it in a `finally`). A key already in flight here is 409 `idempotency_key_in_use` at once,
     * without asking the database: its transaction has not committed, so the database could
     * only make this request wait for it (PostgreSQL) or hold the lock for it (SQLite).
     */
    enter(apiKeyId: string, key: string): () => void {
      const id = `${apiKeyId} ${key}`; // API key ids have no space
      if (inFlight.has(id)) throw inUse();
      inFlight.add(id);
      return () => void inFlight.delete(id);
    },
    /**
     * Claims the key, runs `produce` and stores its response, in one transaction (one commit).
     * A key already answered is replayed instead; a failure of `produce` rolls everything back,
     * the claim included, so only successes are remembered and the key can be used again.
     */
    *perform(apiKeyId: string, key: string, fingerprint: string, status: number, produce: () => Flow<unknown>): Flow<Outcome> {
      return yield* transaction(function* (): Flow<Outcome> {
        const claim = yield* claimIn(apiKeyId, key, fingerprint);
        if (claim.kind === "replay") return claim;
        const body = JSON.stringify(yield* produce());
        yield* store.complete({ apiKeyId, key }, status, body, clock.nowMicros());
        return { kind: "done", body };
      });
    },
    /**
     * Claims the key in a transaction of its own and commits the unfinished claim, for
     * `execute` to finish later: the two-commit protocol of earlier versions, which tests use
     * to stand for a request still running (or crashed) in another process.
     */
    begin: (apiKeyId: string, key: string, fingerprint: string): Flow<Claim> => transaction(() => claimIn(apiKeyId, key, fingerprint)),
    /**
     * Finishes a claim made by `begin`: runs `produce` (whose own transaction nests inside this
     * one) and stores its response in the same transaction. A failure releases the claim so the
     * key can be used again. A database that is busy or unavailable is not a failure of the
     * request: the claim stays, and times out after CLAIM_TIMEOUT_MICROS.
     */
    *execute(apiKeyId: string, key: string, status: number, produce: () => Flow<unknown>): Flow<string> {
      try {
        return yield* transaction(function* () {
          const body = JSON.stringify(yield* produce());
          yield* store.complete({ apiKeyId, key }, status, body, clock.nowMicros());
          return body;
        });
      } catch (error) {
        if (!isDatabaseBusy(error) && !isUnavailable(error)) yield* store.release({ apiKeyId, key });
        throw error;
      }
    },
    /** Deletes stored responses past retention; answers how many. */
    purgeExpired: (): MaybePromise<number> => run(store.purgeBefore(clock.nowMicros() - RETENTION_MICROS)),
  };
}

const isUnavailable = (error: unknown) => error instanceof DomainError && error.code === "service_unavailable";

export type Idempotency = ReturnType<typeof createIdempotency>;
