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
 * An exact rolling window over leases: each claim that grants slots is one member of a sorted
 * set, scored by its time, whose name ends with how many slots it holds (`<id>:<slots>`), and a
 * counter beside the set holds the sum of the live ones. Leases older than the window are
 * dropped and their slots given back to the counter before counting. Refused requests are not
 * recorded, so a client that keeps retrying still recovers when its window frees. The time
 * comes from Redis itself, so every API process shares one clock as well as one counter.
 *
 * What a claim costs Redis is a handful of commands on a set of at most a minute's leases (60
 * for the paid tier), whatever its size. The first form of this window kept a member per slot:
 * a claim of the paid tier's 10 slots added 10 members to a set of up to 600, and took 33–38 µs
 * of Redis's time (its commandstats; bench/RESULTS.md, issue #26's fifth pass).
 *
 * If the counter is missing while leases are not (a key deleted by hand), it is summed again
 * from the leases; a set that is empty makes it 0.
 */
const SLIDING_WINDOW = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local window = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
local wanted = tonumber(ARGV[4])
local slots = function(lease) return tonumber(string.match(lease, ':(%d+)$')) or 1 end
local count = 0
if redis.call('ZCARD', KEYS[1]) > 0 then
  local counted = redis.call('GET', KEYS[2])
  local expired = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now - window)
  if counted then
    count = tonumber(counted)
    for _, lease in ipairs(expired) do count = count - slots(lease) end
  else
    for _, lease in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. (now - window), '+inf')) do count = count + slots(lease) end
  end
  if #expired > 0 then redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window) end
  if count < 0 then count = 0 end
end
local granted = math.max(0, math.min(wanted, limit - count))
if granted > 0 then
  redis.call('ZADD', KEYS[1], now, ARGV[3] .. ':' .. granted)
  count = count + granted
end
redis.call('SET', KEYS[2], count, 'PX', window)
redis.call('PEXPIRE', KEYS[1], window)
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
local reset = window
if oldest[2] then reset = tonumber(oldest[2]) + window - now end
return {granted, limit - count, reset}
`;

type SlidingWindowRedis = Redis & {
  slidingWindow(leases: string, slots: string, windowMs: number, limit: number, lease: string, wanted: number): Promise<[granted: number, remaining: number, resetMs: number]>;
};

/**
 * Slots a process claims per Redis call: 1 (exact) for small limits, limit/60 for larger
 * ones (10 for the paid tier), and never more than MAX_LEASE. A claimed slot is spent within LEASE_MS or abandoned; it is
 * counted from the moment it was claimed. With leases of 2 or more, a key's next lease is
 * claimed in the background once half of the one in hand is spent, so a busy key's requests
 * do not wait on Redis at all (a wait on Redis was most of a read's tail). So per process and
 * key, at most one and a half leases less one (14 slots for the paid tier) are refused early
 * (claimed but abandoned) or counted up to LEASE_MS early; in exchange a busy key costs one
 * Redis call per `lease` requests instead of one each, and none of them waits for it.
 */
export const leaseSize = (limit: number) => Math.max(1, Math.min(MAX_LEASE, Math.floor(limit / 60)));
/**
 * Slots one claim takes at most, whatever the limit or the demand. A lease is one member
 * whatever its size, so the bound no longer protects Redis (the first window kept a member per
 * slot, and a test's "no limit" of 10^9 a minute once made a claim of 16.7 million members that
 * kept Redis busy for minutes); it bounds what a process that stops leaves unspent.
 */
const MAX_LEASE = 5000;
const LEASE_MS = 5000;
/**
 * Where the windows live: `<prefix>:rate:<bucket>` (the leases) and `…:slots` (their sum).
 * The first form (`<prefix>:ratelimit:<bucket>`, a member per slot) is not read: while a
 * rolling upgrade runs both versions, each counts its own requests, for one window at most.
 */
const WINDOWS = "rate";
/** While Redis is away, how often one PING (never a request) checks whether it is back. */
const PROBE_MS = 1000;

/** Slots claimed together: spent one by one until none is left or the lease expires. */
interface Lease {
  left: number;
  expiresAt: number;
}

/**
 * One key's (or address's) state in this process. Only one Redis claim per bucket is in
 * flight at a time: requests that arrive meanwhile wait for it (when nothing is in hand) and
 * share what it brings, so a burst on a fresh key neither overwrites leases nor claims more
 * than it uses.
 */
interface Bucket {
  /** Claimed slots not yet spent, oldest lease first. A claim starts only with half a lease or less in hand, so never more than one and a half are held. */
  leases: Lease[];
  /** What Redis said at the last claim: requests left in the window beyond those claimed. */
  remaining: number;
  resetAt: number;
  /** Redis said the window is full: nothing frees before this time, so refuse locally. */
  refusedUntil: number;
  /** Requests of this process waiting on this bucket right now: what the next claim asks for. */
  demand: number;
  claiming: Promise<"claimed" | "redis_away"> | null;
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
  /** The longest a request waits on Redis; past it the process limits on its own until Redis answers a probe. */
  commandTimeoutMs?: number;
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Redis did not answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

export function createRateLimiter(options: RateLimiterOptions) {
  const windowMs = (options.windowSeconds ?? 60) * 1000;
  const commandTimeoutMs = options.commandTimeoutMs ?? 500;
  const redis = options.redis as SlidingWindowRedis;
  if (typeof redis.slidingWindow !== "function") {
    redis.defineCommand("slidingWindow", { numberOfKeys: 2, lua: SLIDING_WINDOW });
  }
  const local = new LocalWindows(windowMs);
  const buckets = new Map<string, Bucket>();
  let mode: LimiterMode = "redis";
  let probe: ReturnType<typeof setTimeout> | undefined;
  let sequence = 0;
  const memberPrefix = crypto.randomUUID().slice(0, 8);

  const decision = (allowed: boolean, limit: number, remaining: number, resetMs: number): RateDecision => ({
    allowed,
    limit,
    remaining: Math.max(0, remaining),
    resetSeconds: Math.max(allowed ? 0 : 1, Math.ceil(resetMs / 1000)),
  });

  function localDecision(bucket: string, limit: number): RateDecision {
    const [granted, remaining, resetMs] = local.consume(bucket, limit);
    return decision(granted > 0, limit, remaining, resetMs);
  }

  /** Redis failed or hung: limit in this process, and let one PING a second find it again. */
  function redisAway(error: unknown): void {
    if (mode === "per_process") return;
    mode = "per_process";
    options.logger.warn("Redis unreachable: rate limits fall back to this process only", { error: (error as Error).message });
    const check = async () => {
      const back = await withTimeout(redis.ping(), commandTimeoutMs).then(
        (r) => r === "PONG",
        () => false,
      );
      if (back) {
        mode = "redis";
        buckets.clear();
        options.logger.info("rate limits are shared again: Redis answers");
      } else {
        probe = setTimeout(() => void check(), PROBE_MS);
        probe.unref();
      }
    };
    probe = setTimeout(() => void check(), PROBE_MS);
    probe.unref();
  }

  async function claim(bucket: Bucket, name: string, limit: number): Promise<"claimed" | "redis_away"> {
    const now = Date.now();
    const wanted = Math.min(limit, MAX_LEASE, Math.max(leaseSize(limit), bucket.demand));
    try {
      const [granted, remaining, resetMs] = await withTimeout(
        redis.slidingWindow(`${options.keyPrefix}:${WINDOWS}:${name}`, `${options.keyPrefix}:${WINDOWS}:${name}:slots`, windowMs, limit, `${memberPrefix}:${++sequence}`, wanted),
        commandTimeoutMs,
      );
      if (granted > 0) bucket.leases.push({ left: granted, expiresAt: now + LEASE_MS });
      bucket.remaining = remaining;
      bucket.resetAt = now + resetMs;
      if (granted === 0) bucket.refusedUntil = now + resetMs;
      return "claimed";
    } catch (error) {
      redisAway(error);
      return "redis_away";
    }
  }

  /** Starts the bucket's claim unless one is in flight; the same promise for everyone waiting. */
  const claimOnce = (bucket: Bucket, name: string, limit: number) =>
    (bucket.claiming ??= claim(bucket, name, limit).finally(() => {
      bucket.claiming = null;
    }));

  /** Spends one slot in hand, if any; answers how many are still held after it, or -1. */
  function spend(bucket: Bucket, now: number): number {
    while (bucket.leases.length > 0 && (bucket.leases[0]!.left === 0 || bucket.leases[0]!.expiresAt <= now)) bucket.leases.shift();
    const lease = bucket.leases[0];
    if (!lease) return -1;
    lease.left--;
    let held = 0;
    for (const l of bucket.leases) if (l.expiresAt > now) held += l.left;
    return held;
  }

  /**
   * Decides with what is in hand: a slot spent from a lease (and the next lease claimed in the
   * background once half of this one is spent), or a refusal Redis already gave. Null: nothing
   * in hand, so the request waits for a claim.
   */
  function decideNow(b: Bucket, name: string, limit: number): RateDecision | null {
    const now = Date.now();
    const held = spend(b, now);
    if (held >= 0) {
      // Half the lease in hand spent: the next one is claimed now, while this request and
      // those after it go on with what is left (not with a lease of 1: that stays exact).
      const lease = leaseSize(limit);
      if (lease > 1 && held <= lease >> 1 && b.refusedUntil <= now) void claimOnce(b, name, limit);
      return decision(true, limit, b.remaining + held, b.resetAt - now);
    }
    if (b.refusedUntil > now) return decision(false, limit, 0, b.refusedUntil - now);
    return null;
  }

  /** Nothing in hand: waits for the bucket's claim (with the others waiting) and decides with what it brought. */
  async function decideAfterClaim(b: Bucket, name: string, limit: number): Promise<RateDecision> {
    b.demand++;
    try {
      for (;;) {
        if ((await claimOnce(b, name, limit)) === "redis_away") return localDecision(name, limit);
        const decided = decideNow(b, name, limit);
        if (decided) return decided;
      }
    } finally {
      b.demand--;
    }
  }

  return {
    windowSeconds: windowMs / 1000,
    mode: (): LimiterMode => mode,
    /**
     * Counts one request against `name`'s window. Answers at once (no promise, no turn of the
     * event loop) when the process holds a slot or a refusal; a promise only when it must ask Redis.
     */
    consume(name: string, limit: number): RateDecision | Promise<RateDecision> {
      if (mode === "per_process") return localDecision(name, limit);
      let bucket = buckets.get(name);
      if (!bucket) {
        bucket = { leases: [], remaining: 0, resetAt: 0, refusedUntil: 0, demand: 0, claiming: null };
        buckets.set(name, bucket);
        if (buckets.size > 100_000) buckets.delete(buckets.keys().next().value!); // bounded memory
      }
      return decideNow(bucket, name, limit) ?? decideAfterClaim(bucket, name, limit);
    },
    /** Stops the Redis probe (shutdown). */
    close(): void {
      clearTimeout(probe);
    },
  };
}

export type RateLimiter = ReturnType<typeof createRateLimiter>;
