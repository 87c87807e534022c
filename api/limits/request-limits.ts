import type { RateLimitTier } from "../../shared/domain.ts";
import { DomainError } from "../../shared/errors.ts";
import type { Actor } from "../auth/actor.ts";
import type { RateDecision, RateLimiter } from "./rate-limiter.ts";

export interface RateLimitSettings {
  perTier: Record<RateLimitTier, number>;
  /** Failed authentications allowed per client address and window, so keys cannot be guessed at speed. */
  failedAuthPerAddress: number;
  /** Wrong ADMIN_TOKENs allowed per client address and window, on /metrics and /admin/queues. */
  failedAdminPerAddress: number;
}

export const DEFAULT_RATE_LIMITS: RateLimitSettings = {
  perTier: { default: 60, paid: 600 },
  failedAuthPerAddress: 30,
  failedAdminPerAddress: 10,
};

export const rateLimitHeaders = (decision: RateDecision): Record<string, string> => ({
  "x-ratelimit-limit": String(decision.limit),
  "x-ratelimit-remaining": String(decision.remaining),
  "x-ratelimit-reset": String(decision.resetSeconds),
});

const limited = (decision: RateDecision, what: string) =>
  new DomainError(
    "rate_limited",
    `Too many requests: ${decision.limit} per ${what}. Retry after ${decision.resetSeconds} s.`,
    undefined,
    decision.resetSeconds,
  );

/** A key's decision as a response needs it: its headers, and the refusal to throw when it is one. */
export interface KeyLimit {
  headers: Record<string, string>;
  refusal: DomainError | null;
}

/**
 * The two limits every request meets: the calling key's bucket (a test key is its own key,
 * so its own bucket) and, for failed authentication, the client address's. Only failures
 * count against an address, and only failures are refused for it: a valid key sent from an
 * address that also sent bad ones (integrations behind one NAT) is served as usual. An
 * address past its failure budget gets 429 for bad keys without another Redis call until
 * its window frees.
 */
export function createRequestLimits(limiter: RateLimiter, settings: RateLimitSettings) {
  const window = `${limiter.windowSeconds} seconds`;
  const keyLimit = (decision: RateDecision): KeyLimit => ({
    headers: rateLimitHeaders(decision),
    refusal: decision.allowed ? null : limited(decision, `${window} for this key`),
  });

  /** A budget of failures per address: refusals are answered locally once it is spent. */
  function failureBudget(bucketPrefix: string, limit: number, what: string) {
    const blockedUntil = new Map<string, number>();
    const refusal = (decision: RateDecision) => limited(decision, `${window} of ${what} from this address`);
    return async (address: string): Promise<DomainError | null> => {
      const until = blockedUntil.get(address);
      if (until !== undefined) {
        const seconds = Math.ceil((until - Date.now()) / 1000);
        if (seconds > 0) return refusal({ allowed: false, limit, remaining: 0, resetSeconds: seconds });
        blockedUntil.delete(address);
      }
      const decision = await limiter.consume(`${bucketPrefix}:${address}`, limit);
      if (decision.allowed) return null;
      blockedUntil.set(address, Date.now() + decision.resetSeconds * 1000);
      if (blockedUntil.size > 100_000) blockedUntil.delete(blockedUntil.keys().next().value!); // bounded memory
      return refusal(decision);
    };
  }

  return {
    /**
     * Counts the request against its key's bucket; the caller sends the headers either way.
     * Plain when the limiter decides from what it holds (most requests), a promise when it asks Redis.
     */
    forKey(actor: Actor): KeyLimit | Promise<KeyLimit> {
      const decision = limiter.consume(`key:${actor.keyId}`, settings.perTier[actor.tier]);
      return decision instanceof Promise ? decision.then(keyLimit) : keyLimit(decision);
    },
    /** Counts a failed authentication; past the budget, the failure becomes a 429. */
    recordAuthFailure: failureBudget("authfail", settings.failedAuthPerAddress, "failed authentication"),
    /** Counts a wrong admin token; past the budget, the failure becomes a 429. */
    recordAdminFailure: failureBudget("adminfail", settings.failedAdminPerAddress, "wrong admin tokens"),
  };
}

export type RequestLimits = ReturnType<typeof createRequestLimits>;
