import { Redis } from "ioredis";
import { loadConfigOrExit } from "../shared/config.ts";
import { createLogger } from "../shared/logger.ts";

/**
 * The worker process. Until the job handlers land it only holds its Redis connection and
 * exits cleanly on SIGTERM, so `npm start` already runs the final process layout.
 */
const config = loadConfigOrExit();
const logger = createLogger(config.logLevel, { service: "worker" });
// Workers wait for Redis instead of failing commands (BullMQ's requirement for workers).
const redis = new Redis(config.redisUrl, { maxRetriesPerRequest: null });
redis.on("error", (error) => logger.warn("redis connection error", { error: error.message }));
logger.info("worker started", { queue_prefix: config.queuePrefix, handlers: 0 });

const shutdown = (signal: string) => {
  logger.info("worker stopping", { signal });
  redis.disconnect();
  process.exit(0);
};
process.on("SIGTERM", () => shutdown("SIGTERM"));
process.on("SIGINT", () => shutdown("SIGINT"));
