import { afterAll } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startPrivateRedis, type PrivateRedis } from "../../scripts/private-redis.ts";
import { postgresAnswers } from "./postgres.ts";

/**
 * A DATA_DIR of the run's own, so that no process a suite starts (which all read DATA_DIR's
 * settings.json and secrets.json, and write .eml files there) sees or touches the checkout's
 * ./data, where a developer's `npm start` keeps its installation. Suites that test those files
 * give their own DATA_DIR. Removed at the end of the run.
 */
const dataDir = process.env.DATA_DIR ? undefined : mkdtempSync(join(tmpdir(), "onboarding-test-data-"));
if (dataDir) process.env.DATA_DIR = dataDir;

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
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});
