import type { Redis } from "ioredis";
import type { Logger } from "../logger.ts";

/**
 * Logs a Redis outage once when it begins and once when the connection is back, instead of
 * every reconnection attempt (ioredis emits an error per attempt, every 0.5-2 s).
 */
export function reportOutages(redis: Redis, logger: Logger, connection: string): void {
  let down = false;
  redis.on("error", (error) => {
    if (down) return;
    down = true;
    logger.warn("redis connection lost; retrying in the background", { connection, error: error.message });
  });
  redis.on("ready", () => {
    if (!down) return;
    down = false;
    logger.info("redis connection restored", { connection });
  });
}

/**
 * BullMQ needs Redis never to evict keys (`maxmemory-policy noeviction`): an evicted job or
 * lock is work silently lost (the outbox reconciler would hand it over again, but late).
 * Says so at start-up when the policy is anything else; a Redis that hides the setting
 * (some managed services) is left unjudged.
 */
export async function checkEvictionPolicy(redis: Redis, logger: Logger): Promise<string | null> {
  try {
    const info = await redis.info("memory");
    const policy = /^maxmemory_policy:(\S+)/m.exec(info)?.[1] ?? null;
    if (policy !== null && policy !== "noeviction") {
      logger.warn("Redis may evict queued jobs: set maxmemory-policy to noeviction (CONFIG SET maxmemory-policy noeviction)", {
        maxmemory_policy: policy,
      });
    }
    return policy;
  } catch {
    return null;
  }
}
