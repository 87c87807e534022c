import { afterAll, describe, expect, test } from "bun:test";
import { Database as Sqlite } from "bun:sqlite";
import { Redis } from "ioredis";
import { systemClock } from "../../shared/clock.ts";
import { openDatabase } from "../../shared/db/client.ts";
import { sqliteDatabase } from "../../shared/db/database.ts";
import { guardInstallationPrefix } from "../../shared/jobs/queue-prefix-owner.ts";
import { createLogger } from "../../shared/logger.ts";
import { freshDatabase, testRedisUrl, uniquePrefix, waitUntilReady } from "../support/test-app.ts";

const redis = new Redis(testRedisUrl(), { maxRetriesPerRequest: 1 });
afterAll(() => redis.disconnect());

describe("the installation's row at start (SQLite)", () => {
  test("an API connection that does not wait for the lock (busy timeout 0) waits out another connection's write lock with timers", async () => {
    const fresh = freshDatabase();
    // The API opens its connection so (api/main.ts): requests wait for the lock with timers, never in SQLite.
    const api = openDatabase(fresh.path, { busyTimeoutMs: 0 });
    const other = new Sqlite(fresh.path);
    try {
      await waitUntilReady(redis);
      other.exec("BEGIN IMMEDIATE"); // the worker's first write, say, at the same moment
      const released = Bun.sleep(150).then(() => other.exec("COMMIT"));
      const installation = await guardInstallationPrefix(redis, {
        database: sqliteDatabase(api, fresh.path),
        clock: systemClock,
        config: { database: { engine: "sqlite", path: fresh.path }, queuePrefix: uniquePrefix("install"), queuePrefixTakeover: false, redisUrl: testRedisUrl() } as never,
        logger: createLogger("silent"),
        waitMs: 3000,
        stop: () => {
          throw new Error("stopped");
        },
      });
      await released;
      expect(installation.id).toMatch(/^ins_/);
    } finally {
      other.close();
      api.$client.close();
      fresh.cleanup();
    }
  });
});
