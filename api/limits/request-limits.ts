import type { RateLimitTier } from "../../shared/domain.ts";
import { DomainError } from "../../shared/errors.ts";
import type { Actor } from "../auth/actor.ts";
import type { RateDecision, RateLimiter } from "./rate-limiter.ts";

export interface RateLimitSettings {
  perTier: Record<RateLimitTier, number>;
  /** Failed authentications allowed per client address and window, so keys cannot be guessed at speed. */
  failedAuthPerAddress: number;
}

export const DEFAULT_RATE_LIMITS: RateLimitSettings = {
  perTier: { default: 60, paid: 600 },
  failedAuthPerAddress: 30,
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

/**
 * The two limits every request meets: the calling key's bucket (a test key is its own key,
 * so its own bucket) and, for failed authentication, the client address's. An address over
 * its failure budget is refused locally without touching Redis or the key table until its
 * window frees.
 */
export function createRequestLimits(limiter: RateLimiter, settings: RateLimitSettings) {
  const blockedUntil = new Map<string, number>();
  const window = `${limiter.windowSeconds} seconds`;

  return {
    /** Counts the request against its key's bucket; the caller sends the headers either way. */
    async forKey(actor: Actor): Promise<{ headers: Record<string, string>; refusal: DomainError | null }> {
      const decision = await limiter.consume(`key:${actor.keyId}`, settings.perTier[actor.tier]);
      return { headers: rateLimitHeaders(decision), refusal: decision.allowed ? null : limited(decision, `${window} for this key`) };
    },
    /** Throws `rate_limited` when the address already used up its failures. */
    assertAddressNotBlocked(address: string): void {
      const until = blockedUntil.get(address);
      if (until === undefined) return;
      const seconds = Math.ceil((until - Date.now()) / 1000);
      if (seconds <= 0) {
        blockedUntil.delete(address);
        return;
      }
      throw limited({ allowed: false, limit: settings.failedAuthPerAddress, remaining: 0, resetSeconds: seconds }, `${window} of failed authentication from this address`);
    },
    /** Counts a failed authentication; past the budget, the failure becomes a 429. */
    async recordAuthFailure(address: string): Promise<DomainError | null> {
      const decision = await limiter.consume(`authfail:${address}`, settings.failedAuthPerAddress);
      if (decision.allowed) return null;
      blockedUntil.set(address, Date.now() + decision.resetSeconds * 1000);
      return limited(decision, `${window} of failed authentication from this address`);
    },
  };
}

export type RequestLimits = ReturnType<typeof createRequestLimits>;
