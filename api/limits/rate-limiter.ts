import type { Redis } from "ioredis";
import type { Logger } from "../../shared/logger.ts";

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window frees a request (whole, at least 1 when refused). */
  resetSeconds: number;
}

export type LimiterMode = "redis" | "per_process";

/**
 * An exact rolling window: each accepted request is a member of a sorted set scored by its
 * time; members older than the window are dropped before counting. Refused requests are not
 * recorded, so a client that keeps retrying still recovers when its window frees. The time
 * comes from Redis itself, so every API process shares one clock as well as one counter.
 */
const SLIDING_WINDOW = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local window = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
local wanted = tonumber(ARGV[4])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local count = redis.call('ZCARD', KEYS[1])
local granted = math.max(0, math.min(wanted, limit - count))
for i = 1, granted do
  redis.call('ZADD', KEYS[1], now, ARGV[3] .. ':' .. i)
end
count = count + granted
redis.call('PEXPIRE', KEYS[1], window)
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
local reset = window
if oldest[2] then reset = tonumber(oldest[2]) + window - now end
return {granted, limit - count, reset}
`;

type SlidingWindowRedis = Redis & {
  slidingWindow(key: string, windowMs: number, limit: number, member: string, wanted: number): Promise<[granted: number, remaining: number, resetMs: number]>;
};

/**
 * Slots a process claims per Redis call: 1 (exact) for small limits, limit/60 for larger
 * ones (10 for the paid tier). A claimed slot is spent within LEASE_MS or abandoned; it is
 * counted from the moment it was claimed. So per process and key, at most lease-1 requests
 * are refused early (slots claimed but abandoned) or counted up to LEASE_MS early; in
 * exchange a busy key costs one Redis call per `lease` requests instead of one each.
 */
export const leaseSize = (limit: number) => Math.max(1, Math.floor(limit / 60));
const LEASE_MS = 5000;

/** Claimed slots not yet spent, per bucket, with what Redis said when they were claimed. */
interface Lease {
  left: number;
  remaining: number;
  resetAt: number;
  expiresAt: number;
}

/** The same rolling window in this process's memory: the fallback while Redis is away. */
class LocalWindows {
  private readonly logs = new Map<string, number[]>();
  constructor(private readonly windowMs: number) {}

  consume(bucket: string, limit: number, now = Date.now()): [allowed: number, remaining: number, resetMs: number] {
    const log = (this.logs.get(bucket) ?? []).filter((t) => t > now - this.windowMs);
    const allowed = log.length < limit;
    if (allowed) log.push(now);
    this.logs.set(bucket, log);
    if (this.logs.size > 100_000) this.logs.delete(this.logs.keys().next().value!); // bounded memory
    return [allowed ? 1 : 0, limit - log.length, log.length > 0 ? log[0]! + this.windowMs - now : this.windowMs];
  }
}

export interface RateLimiterOptions {
  redis: Redis;
  keyPrefix: string;
  logger: Logger;
  windowSeconds?: number;
}

export function createRateLimiter(options: RateLimiterOptions) {
  const windowMs = (options.windowSeconds ?? 60) * 1000;
  const redis = options.redis as SlidingWindowRedis;
  if (typeof redis.slidingWindow !== "function") {
    redis.defineCommand("slidingWindow", { numberOfKeys: 1, lua: SLIDING_WINDOW });
  }
  const local = new LocalWindows(windowMs);
  const leases = new Map<string, Lease>();
  let mode: LimiterMode = "redis";
  let sequence = 0;
  const memberPrefix = crypto.randomUUID().slice(0, 8);

  const decision = (allowed: boolean, limit: number, remaining: number, resetMs: number): RateDecision => ({
    allowed,
    limit,
    remaining: Math.max(0, remaining),
    resetSeconds: Math.max(allowed ? 0 : 1, Math.ceil(resetMs / 1000)),
  });

  /** Spends one slot of a live lease, if the bucket has one. */
  function fromLease(bucket: string, limit: number, now: number): RateDecision | null {
    const lease = leases.get(bucket);
    if (!lease || lease.left === 0 || lease.expiresAt <= now) return null;
    lease.left--;
    return decision(true, limit, lease.remaining + lease.left, lease.resetAt - now);
  }

  return {
    windowSeconds: windowMs / 1000,
    mode: (): LimiterMode => mode,
    async consume(bucket: string, limit: number): Promise<RateDecision> {
      const now = Date.now();
      const leased = fromLease(bucket, limit, now);
      if (leased) {
        // Still one event-loop turn, as a Redis call would take: served synchronously, a
        // burst of requests reached SQLite's write lock back to back, and creates fell from
        // 3.5k to 2.9k req/s (bench/RESULTS.md).
        await new Promise((resolve) => setImmediate(resolve));
        return leased;
      }
      try {
        const wanted = leaseSize(limit);
        const [granted, remaining, resetMs] = await redis.slidingWindow(
          `${options.keyPrefix}:ratelimit:${bucket}`,
          windowMs,
          limit,
          `${memberPrefix}:${++sequence}`,
          wanted,
        );
        if (mode !== "redis") {
          mode = "redis";
          options.logger.info("rate limits are shared again: Redis answers");
        }
        if (granted > 1) {
          leases.set(bucket, { left: granted - 1, remaining, resetAt: now + resetMs, expiresAt: now + LEASE_MS });
          if (leases.size > 100_000) leases.delete(leases.keys().next().value!);
        }
        return decision(granted > 0, limit, remaining + Math.max(0, granted - 1), resetMs);
      } catch (error) {
        if (mode !== "per_process") {
          mode = "per_process";
          options.logger.warn("Redis unreachable: rate limits fall back to this process only", { error: (error as Error).message });
        }
        const [granted, remaining, resetMs] = local.consume(bucket, limit);
        return decision(granted > 0, limit, remaining, resetMs);
      }
    },
  };
}

export type RateLimiter = ReturnType<typeof createRateLimiter>;
