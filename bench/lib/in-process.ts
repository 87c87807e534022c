/**
 * The real app in this process, for the in-process benchmarks (request-cost, request-steps,
 * growth, feed): createApp over a fresh SQLite file and a private Redis, one workspace (or
 * `workspaces`) with 400 paid keys each (so a run rotating over them meets no limit), and
 * 2,000 onboardings in the first. With
 * `engine: "postgres"` the seeded file is copied into a fresh PostgreSQL database and the app
 * runs on that (`db` stays the seed file; `database` is what the app uses).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { createApp } from "../../api/app.ts";
import { DEFAULT_RATE_LIMITS } from "../../api/limits/request-limits.ts";
import { systemClock } from "../../shared/clock.ts";
import { openDatabase } from "../../shared/db/client.ts";
import { postgresDatabase, sqliteDatabase, type Database } from "../../shared/db/database.ts";
import { openPostgres } from "../../shared/db/postgres.ts";
import { createLogger } from "../../shared/logger.ts";
import { startPrivateRedis } from "../../scripts/private-redis.ts";
import { copyToFreshPostgres } from "./postgres.ts";
import { seedOnboardings, seedWorkspaces } from "./seed.ts";

export async function startInProcessApp(options: { keys?: number; onboardings?: number; engine?: "sqlite" | "postgres"; workspaces?: number } = {}) {
  const dir = mkdtempSync(join(tmpdir(), "in-process-"));
  const file = join(dir, "service.sqlite");
  let redisServer: Awaited<ReturnType<typeof startPrivateRedis>> | undefined;
  let redis: Redis | undefined;
  let db: ReturnType<typeof openDatabase> | undefined;
  let built: Awaited<ReturnType<typeof createApp>> | undefined;
  let database: Database | undefined;
  let postgres: Awaited<ReturnType<typeof copyToFreshPostgres>> | undefined;
  const close = async (): Promise<void> => {
    try {
      await built?.close();
    } finally {
      redis?.disconnect();
      db?.$client.close();
      if (postgres) {
        await database?.close();
        await postgres.drop();
      }
      await redisServer?.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  };
  try {
    redisServer = await startPrivateRedis();
    db = openDatabase(file, { busyTimeoutMs: 0 });
    const keys = seedWorkspaces(db, { orgs: options.workspaces ?? 1, keysPerOrg: options.keys ?? 400, onboardings: 0 });
    const first = keys[0]!;
    const onboardingIds = seedOnboardings(db, first.orgId, first.customerId, options.onboardings ?? 2_000);
    const connection = (redis = new Redis(redisServer.url, { maxRetriesPerRequest: 1, enableOfflineQueue: false }));
    if (options.engine === "postgres") {
      postgres = await copyToFreshPostgres(db, `inproc_${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`);
      database = postgresDatabase(await openPostgres(postgres.url, { poolSize: 8 }));
    } else {
      database = sqliteDatabase(db);
    }
    built = await createApp({
      database,
      redis: connection,
      clock: systemClock,
      logger: createLogger("warn"),
      publicUrl: "http://127.0.0.1:3000",
      redisPrefix: "cost",
      rateLimits: DEFAULT_RATE_LIMITS,
      // As the API process runs (api/main.ts): read calls' activity entries on a thread of their own.
      activityThread: true,
    });
    // Ready, or a clear failure within 5 s: a benchmark never waits on a Redis that is not there.
    await new Promise<void>((resolve, reject) => {
      if (connection.status === "ready") return resolve();
      const timer = setTimeout(() => reject(new Error("the private Redis did not answer within 5 s")), 5_000);
      connection.once("ready", () => (clearTimeout(timer), resolve()));
    });
    return { built, database, db, file, keys, first, onboardingIds, postgresUrl: postgres?.url, redisUrl: redisServer.url, close };
  } catch (error) {
    await close();
    throw error;
  }
}
