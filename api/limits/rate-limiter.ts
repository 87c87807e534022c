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
 * One call claims for any number of windows, each on its own (KEYS: each window's set and
 * counter; ARGV: the window's length, then each window's limit, lease name and slots wanted),
 * and answers three numbers per window: a process sends the claims of a moment together
 * (`createRateLimiter`). Each window's part is what a claim of its own did.
 *
 * If the counter is missing while leases are not (a key deleted by hand), it is summed again
 * from the leases; a set that is empty makes it 0.
 */
const SLIDING_WINDOWS = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local window = tonumber(ARGV[1])
local slots = function(lease) return tonumber(string.match(lease, ':(%d+)$')) or 1 end
local answers = {}
for i = 1, #KEYS / 2 do
  local leases, counter = KEYS[2 * i - 1], KEYS[2 * i]
  local limit = tonumber(ARGV[3 * i - 1])
  local wanted = tonumber(ARGV[3 * i + 1])
  local count = 0
  if redis.call('ZCARD', leases) > 0 then
    local counted = redis.call('GET', counter)
    local expired = redis.call('ZRANGEBYSCORE', leases, '-inf', now - window)
    if counted then
      count = tonumber(counted)
      for _, lease in ipairs(expired) do count = count - slots(lease) end
    else
      for _, lease in ipairs(redis.call('ZRANGEBYSCORE', leases, '(' .. (now - window), '+inf')) do count = count + slots(lease) end
    end
    if #expired > 0 then redis.call('ZREMRANGEBYSCORE', leases, '-inf', now - window) end
    if count < 0 then count = 0 end
  end
  local granted = math.max(0, math.min(wanted, limit - count))
  if granted > 0 then
    redis.call('ZADD', leases, now, ARGV[3 * i] .. ':' .. granted)
    count = count + granted
  end
  redis.call('SET', counter, count, 'PX', window)
  redis.call('PEXPIRE', leases, window)
  local oldest = redis.call('ZRANGE', leases, 0, 0, 'WITHSCORES')
  local reset = window
  if oldest[2] then reset = tonumber(oldest[2]) + window - now end
  answers[3 * i - 2] = granted
  answers[3 * i - 1] = limit - count
  answers[3 * i] = reset
end
return answers
`;

type SlidingWindowsRedis = Redis & {
  /** `(numberOfKeys, ...each window's set and counter, windowMs, ...each window's limit, lease and wanted)`: three numbers per window. */
  slidingWindows(...args: (string | number)[]): Promise<number[]>;
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
 * One key's (or address's) state in this process. Only one Redis claim per bucket is queued or
 * in flight at a time: requests that arrive meanwhile wait for it (when nothing is in hand) and
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
  /** The bucket's claim, queued or sent; settled once Redis answered it (or did not). */
  claiming: Promise<ClaimOutcome> | null;
  /** The claim waits for the next call to Redis (see `createRateLimiter`): not sent yet. */
  queued: boolean;
}

type ClaimOutcome = "claimed" | "redis_away";

/** A bucket's claim waiting for the next call to Redis. */
interface QueuedClaim {
  bucket: Bucket;
  name: string;
  limit: number;
  settle(outcome: ClaimOutcome): void;
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
  /** How long a claim made ahead (half a lease still in hand) waits for others to go with it (REFILL_MS). */
  refillMs?: number;
}

/**
 * How long, at most, a claim made ahead waits for others before it is sent: the half lease in
 * hand (5 requests of a paid key) lasts that long unless the key makes 1,000 requests a second,
 * and then the request that finds nothing in hand sends it at once. Under a read load spread
 * over many keys the claims of a few milliseconds go as one call (see `createRateLimiter`).
 */
const REFILL_MS = 5;
/** Windows one call claims for at most: it holds Redis (single-threaded) for all of them. */
const MOST_PER_CALL = 100;

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Redis did not answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * The limiter of one process. Claims are sent to Redis together: a request that finds nothing
 * in hand queues its bucket's claim for the end of this turn of the event loop (`setImmediate`),
 * and a claim made ahead (half a lease spent) for at most `refillMs`; whatever is queued when
 * either comes goes as one call (`SLIDING_WINDOWS`), up to MOST_PER_CALL windows a call. A call
 * of its own per claim cost the event loop a command, a timer and a write and read on the
 * socket for every tenth read of a paid key, and Redis a script call: under a read spread over
 * 3,000 keys, half of what the shared limit costs a read (bench/RESULTS.md, issue #26's
 * twenty-fourth pass). What each window decides is unchanged: the same script per window, one
 * claim per bucket at a time. What a call that fails or times out does is unchanged too (the
 * process limits on its own until Redis answers a probe), for every window it carried.
 */
export function createRateLimiter(options: RateLimiterOptions) {
  const windowMs = (options.windowSeconds ?? 60) * 1000;
  const commandTimeoutMs = options.commandTimeoutMs ?? 500;
  const refillMs = options.refillMs ?? REFILL_MS;
  const redis = options.redis as SlidingWindowsRedis;
  if (typeof redis.slidingWindows !== "function") {
    // No `numberOfKeys`: each call says how many windows it carries.
    redis.defineCommand("slidingWindows", { lua: SLIDING_WINDOWS });
  }
  const local = new LocalWindows(windowMs);
  const buckets = new Map<string, Bucket>();
  let mode: LimiterMode = "redis";
  let probe: ReturnType<typeof setTimeout> | undefined;
  let sequence = 0;
  const memberPrefix = crypto.randomUUID().slice(0, 8);
  let queue: QueuedClaim[] = [];
  let sendingSoon = false;
  let refill: ReturnType<typeof setTimeout> | undefined;

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

  /**
   * The bucket's claim, queued unless one is already queued or sent; the same promise for
   * everyone waiting. `waited`: a request waits for it (nothing in hand), so it goes at the end
   * of this turn; otherwise within `refillMs`.
   */
  function claimOnce(bucket: Bucket, name: string, limit: number, waited: boolean): Promise<ClaimOutcome> {
    if (bucket.claiming === null) {
      bucket.queued = true;
      bucket.claiming = new Promise<ClaimOutcome>((settle) => queue.push({ bucket, name, limit, settle }));
    }
    if (bucket.queued) {
      if (waited || queue.length >= MOST_PER_CALL) sendSoon();
      else if (refill === undefined) {
        refill = setTimeout(sendQueued, refillMs);
        refill.unref(); // a limiter left unclosed does not keep its process alive
      }
    }
    return bucket.claiming;
  }

  function sendSoon(): void {
    if (sendingSoon) return;
    sendingSoon = true;
    setImmediate(sendQueued);
  }

  /** Sends every queued claim, MOST_PER_CALL windows a call. */
  function sendQueued(): void {
    sendingSoon = false;
    clearTimeout(refill);
    refill = undefined;
    const claims = queue;
    queue = [];
    for (let i = 0; i < claims.length; i += MOST_PER_CALL) void send(claims.slice(i, i + MOST_PER_CALL));
  }

  /** One call for the claims; each bucket takes what its window granted, then its waiters go on. */
  async function send(claims: QueuedClaim[]): Promise<void> {
    const keys: string[] = [];
    const perWindow: (string | number)[] = [];
    for (const { bucket, name, limit } of claims) {
      bucket.queued = false;
      keys.push(`${options.keyPrefix}:${WINDOWS}:${name}`, `${options.keyPrefix}:${WINDOWS}:${name}:slots`);
      // What the requests waiting now want: counted when the claim leaves, not when it was queued.
      perWindow.push(limit, `${memberPrefix}:${++sequence}`, Math.min(limit, MAX_LEASE, Math.max(leaseSize(limit), bucket.demand)));
    }
    let outcome: ClaimOutcome = "claimed";
    if (mode === "per_process") {
      outcome = "redis_away"; // queued before Redis went away: the probe finds it again
    } else {
      const now = Date.now();
      try {
        const answers = await withTimeout(redis.slidingWindows(claims.length * 2, ...keys, windowMs, ...perWindow), commandTimeoutMs);
        claims.forEach(({ bucket }, i) => {
          const granted = answers[3 * i]!;
          const resetMs = answers[3 * i + 2]!;
          if (granted > 0) bucket.leases.push({ left: granted, expiresAt: now + LEASE_MS });
          bucket.remaining = answers[3 * i + 1]!;
          bucket.resetAt = now + resetMs;
          if (granted === 0) bucket.refusedUntil = now + resetMs;
        });
      } catch (error) {
        redisAway(error);
        outcome = "redis_away";
      }
    }
    settleAll(claims, outcome);
  }

  /** Ends the claims: their buckets may claim again, and their waiters go on with `outcome`. */
  function settleAll(claims: readonly QueuedClaim[], outcome: ClaimOutcome): void {
    for (const { bucket, settle } of claims) {
      bucket.queued = false;
      bucket.claiming = null;
      settle(outcome);
    }
  }

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
      if (lease > 1 && held <= lease >> 1 && b.refusedUntil <= now) void claimOnce(b, name, limit, false);
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
        if ((await claimOnce(b, name, limit, true)) === "redis_away") return localDecision(name, limit);
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
        bucket = { leases: [], remaining: 0, resetAt: 0, refusedUntil: 0, demand: 0, claiming: null, queued: false };
        buckets.set(name, bucket);
        if (buckets.size > 100_000) buckets.delete(buckets.keys().next().value!); // bounded memory
      }
      return decideNow(bucket, name, limit) ?? decideAfterClaim(bucket, name, limit);
    },
    /**
     * Stops the Redis probe and drops the claims still queued (shutdown): once requests stop only
     * claims made ahead are left, which nobody waits for, and sending them would hold slots in the
     * shared windows for a process that is leaving. Anyone waiting on one decides locally.
     */
    close(): void {
      clearTimeout(probe);
      clearTimeout(refill);
      refill = undefined;
      settleAll(queue, "redis_away");
      queue = [];
    },
  };
}

export type RateLimiter = ReturnType<typeof createRateLimiter>;
