import { afterAll } from "bun:test";
import { startPrivateRedis, type PrivateRedis } from "../../scripts/private-redis.ts";
import { postgresAnswers } from "./postgres.ts";

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

/**
 * PostgreSQL: `TEST_POSTGRES_URL` when set; otherwise one answering at 127.0.0.1:5432 as
 * `postgres` (Debian's default, trust on loopback). Without either the PostgreSQL variants skip.
 */
const LOCAL_POSTGRES = "postgres://postgres@127.0.0.1:5432/postgres";
if (!process.env.TEST_POSTGRES_URL && (await postgresAnswers(LOCAL_POSTGRES))) process.env.TEST_POSTGRES_URL = LOCAL_POSTGRES;

afterAll(async () => {
  await owned?.stop();
});
