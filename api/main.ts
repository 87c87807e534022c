import { Redis } from "ioredis";
import { systemClock } from "../shared/clock.ts";
import { loadConfigOrExit } from "../shared/config.ts";
import { openDatabase } from "../shared/db/client.ts";
import { createLogger } from "../shared/logger.ts";
import { createApp } from "./app.ts";

const config = loadConfigOrExit();
const logger = createLogger(config.logLevel, { service: "api" });
const db = openDatabase(config.databasePath);
// The API's Redis connection fails fast: a request must never hang on a Redis outage.
const redis = new Redis(config.redisUrl, { maxRetriesPerRequest: 1, enableOfflineQueue: false, lazyConnect: false });
redis.on("error", (error) => logger.warn("redis connection error", { error: error.message }));

const { app, close } = await createApp({
  db,
  redis,
  clock: systemClock,
  logger,
  publicUrl: config.publicUrl,
  redisPrefix: config.queuePrefix,
  adminToken: config.adminToken,
});
app.listen({ hostname: config.host, port: config.port });
logger.info("api listening", { url: `http://${config.host}:${config.port}/api/v1`, database: config.databasePath });

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  logger.info("api stopping", { signal });
  // In-flight requests finish, then buffers drain; whatever is left after 10 s stays in
  // the outbox (or is lost, for activity still in memory) and the process exits anyway.
  const drained = (async () => {
    await app.stop();
    await close();
  })();
  const deadline = new Promise<"timeout">((resolve) => setTimeout(() => resolve("timeout"), 10_000).unref());
  if ((await Promise.race([drained, deadline])) === "timeout") logger.warn("api drain timed out after 10 s");
  redis.disconnect();
  db.$client.close();
  process.exit(0);
}
process.on("SIGTERM", () => void shutdown("SIGTERM"));
process.on("SIGINT", () => void shutdown("SIGINT"));
