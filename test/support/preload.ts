import { afterAll } from "bun:test";
import { startPrivateRedis, type PrivateRedis } from "../../scripts/private-redis.ts";

/**
 * One Redis for the whole `bun test` run: `REDIS_URL` when the caller provides one,
 * otherwise a private redis-server on a free port. Every suite still uses its own key
 * prefix, so suites never see each other's queues or counters.
 */
let owned: PrivateRedis | undefined;
if (!process.env.TEST_REDIS_URL) {
  if (process.env.REDIS_URL) {
    process.env.TEST_REDIS_URL = process.env.REDIS_URL;
  } else {
    owned = await startPrivateRedis();
    process.env.TEST_REDIS_URL = owned.url;
  }
}

afterAll(async () => {
  await owned?.stop();
});
