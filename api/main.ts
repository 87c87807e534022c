import { Redis } from "ioredis";
import { systemClock } from "../shared/clock.ts";
import { loadConfigOrExit } from "../shared/config.ts";
import { describeDatabase, openDatabaseOrExit } from "../shared/db/open.ts";
import { guardInstallationPrefix } from "../shared/jobs/queue-prefix-owner.ts";
import { checkEvictionPolicy, reportOutages } from "../shared/jobs/redis-connection.ts";
import { createLogger } from "../shared/logger.ts";
import { createApp } from "./app.ts";

const config = loadConfigOrExit();
const logger = createLogger(config.logLevel, { service: "api" });
// SQLite's own busy wait would freeze the event loop: the API waits for locks with timers, and
// its WAL checkpoints run on a thread of their own (never inside a commit on the event loop).
// On PostgreSQL a statement may run 3 s at most, so a request answers 503 within 5 s.
const database = await openDatabaseOrExit(config.database, { busyTimeoutMs: 0, statementTimeoutMs: 3000, checkpointThread: { logger } });
// The API's Redis connection fails fast and never waits long: a request must not hang on a
// Redis that is down (no offline queue) or hung (a command timeout). Commands issued in one
// event-loop turn (rate-limit claims of concurrent requests) leave in one write.
const redis = new Redis(config.redisUrl, {
  maxRetriesPerRequest: 1,
  enableOfflineQueue: false,
  commandTimeout: config.redisCommandTimeoutMs,
  enableAutoPipelining: true,
});
reportOutages(redis, logger, "api");
redis.once("ready", () => void checkEvictionPolicy(redis, logger));

// Another installation's queues under this prefix stop the start; found later (Redis was away
// at start), they stop the process. A Redis silent for 3 s is checked once it answers.
let listening = false;
const installation = await guardInstallationPrefix(redis, {
  database,
  clock: systemClock,
  config,
  logger,
  waitMs: 3000,
  stop: (exitCode) => (listening ? void shutdown("queue prefix taken", exitCode) : process.exit(exitCode)),
});

const { app, close } = await createApp({
  database,
  redis,
  clock: systemClock,
  logger,
  publicUrl: config.publicUrl,
  secretKey: config.secretKey,
  webhookRules: config.webhookRules,
  redisPrefix: config.queuePrefix,
  adminToken: config.adminToken,
  databaseBusyTimeoutMs: config.databaseBusyTimeoutMs,
  redisCommandTimeoutMs: config.redisCommandTimeoutMs,
  outboxReconcileAfterMs: config.outboxReconcileSeconds * 1000,
  activityThread: true,
});
try {
  // reusePort off: a second API on a port in use must fail, not share it silently.
  app.listen({ hostname: config.host, port: config.port, reusePort: false, idleTimeout: config.httpIdleTimeoutSeconds });
} catch (error) {
  const code = (error as { code?: string }).code;
  console.error(
    code === "EADDRINUSE"
      ? `Cannot listen on ${config.host}:${config.port}: the address is in use (EADDRINUSE). Stop the other process or set PORT.`
      : `Cannot listen on ${config.host}:${config.port}: ${(error as Error).message}`,
  );
  process.exit(1);
}
listening = true;
let stopping = false;
async function shutdown(signal: string, exitCode = 0) {
  if (stopping) return;
  stopping = true;
  logger.info("api stopping", { signal });
  // In-flight requests finish, then buffers drain; whatever is left after 10 s stays in the
  // outbox (or is lost, for read calls' activity entries still in memory) and the process
  // exits anyway. With Redis away nothing waits on it: the outbox keeps the rows.
  const drained = (async () => {
    await app.stop();
    await close();
  })();
  const deadline = new Promise<"timeout">((resolve) => setTimeout(() => resolve("timeout"), 10_000).unref());
  if ((await Promise.race([drained, deadline])) === "timeout") logger.warn("api drain timed out after 10 s");
  redis.disconnect();
  await database.close();
  process.exit(exitCode);
}
process.on("SIGTERM", () => void shutdown("SIGTERM"));
process.on("SIGINT", () => void shutdown("SIGINT"));
// Readiness is announced a turn after the signal handlers are in place: a supervisor (or a
// test) that stops the process the moment it reads the line gets the clean shutdown above,
// never the default exit on SIGTERM (143), which a line written before them allowed.
await new Promise((resolve) => setImmediate(resolve));
logger.info("api listening", {
  url: `http://${config.host}:${config.port}/api/v1`,
  database: describeDatabase(config.database),
  installation_id: installation.id,
  queue_prefix: config.queuePrefix,
});
