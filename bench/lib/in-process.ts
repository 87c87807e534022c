/**
 * The real app in this process, for the in-process benchmarks (request-cost, request-steps):
 * createApp over a fresh SQLite file and a private Redis, one workspace with 400 paid keys (so
 * a run rotating over them meets no limit) and 2,000 onboardings.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { createApp } from "../../api/app.ts";
import { DEFAULT_RATE_LIMITS } from "../../api/limits/request-limits.ts";
import { systemClock } from "../../shared/clock.ts";
import { openDatabase } from "../../shared/db/client.ts";
import { sqliteDatabase } from "../../shared/db/database.ts";
import { createLogger } from "../../shared/logger.ts";
import { startPrivateRedis } from "../../scripts/private-redis.ts";
import { seedOnboardings, seedWorkspaces } from "./seed.ts";

export async function startInProcessApp(options: { keys?: number; onboardings?: number } = {}) {
  const dir = mkdtempSync(join(tmpdir(), "in-process-"));
  const file = join(dir, "service.sqlite");
  const redisServer = await startPrivateRedis();
  const db = openDatabase(file, { busyTimeoutMs: 0 });
  const keys = seedWorkspaces(db, { orgs: 1, keysPerOrg: options.keys ?? 400, onboardings: 0 });
  const first = keys[0]!;
  const onboardingIds = seedOnboardings(db, first.orgId, first.customerId, options.onboardings ?? 2_000);
  const redis = new Redis(redisServer.url, { maxRetriesPerRequest: 1, enableOfflineQueue: false });
  const database = sqliteDatabase(db);
  const built = await createApp({
    database,
    redis,
    clock: systemClock,
    logger: createLogger("warn"),
    publicUrl: "http://127.0.0.1:3000",
    redisPrefix: "cost",
    rateLimits: DEFAULT_RATE_LIMITS,
  });
  await new Promise((resolve) => (redis.status === "ready" ? resolve(null) : redis.once("ready", resolve)));
  return {
    built,
    database,
    db,
    file,
    keys,
    first,
    onboardingIds,
    async close(): Promise<void> {
      await built.close();
      redis.disconnect();
      db.$client.close();
      await redisServer.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
