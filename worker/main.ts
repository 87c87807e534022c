import { Redis } from "ioredis";
import { systemClock } from "../shared/clock.ts";
import { loadConfigOrExit } from "../shared/config.ts";
import { openDatabaseOrExit } from "../shared/db/open.ts";
import { checkEvictionPolicy, reportOutages } from "../shared/jobs/redis-connection.ts";
import { createLogger } from "../shared/logger.ts";
import { createMailer } from "./mailer.ts";
import { createWorker } from "./worker.ts";

const config = loadConfigOrExit();
const logger = createLogger(config.logLevel, { service: "worker" });
const database = await openDatabaseOrExit(config.database);
// Workers wait out a Redis outage instead of failing commands (BullMQ's requirement).
const connection = new Redis(config.redisUrl, { maxRetriesPerRequest: null });
reportOutages(connection, logger, "worker");
connection.once("ready", () => void checkEvictionPolicy(connection, logger));

const worker = createWorker({
  database,
  connection,
  prefix: config.queuePrefix,
  clock: systemClock,
  logger,
  slack: { apiUrl: config.slackApiUrl, fallbackToken: config.slackBotToken, secretKey: config.secretKey },
  mailer: createMailer({ smtpUrl: config.smtpUrl, dataDir: config.dataDir }),
  mailFrom: config.mailFrom,
  concurrency: config.workerConcurrency,
  webhooks: { rules: config.webhookRules, secretKey: config.secretKey },
  reminderScanSeconds: config.reminderScanSeconds,
  lifetimes: config.lifetimes,
  retentionPruneSeconds: config.retentionPruneSeconds,
  lockDurationMs: config.workerLockSeconds * 1000,
});
await worker.ready();
logger.info("worker started", { queue_prefix: config.queuePrefix, concurrency: config.workerConcurrency, mail: config.smtpUrl ? "smtp" : "eml files" });

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  logger.info("worker stopping: finishing active jobs", { signal });
  // close() bounds each of its waits; this outer bound is the promise to the operator.
  const deadline = new Promise((resolve) => setTimeout(resolve, 15_000).unref());
  await Promise.race([worker.close(10_000), deadline]);
  connection.disconnect();
  await database.close();
  process.exit(0);
}
process.on("SIGTERM", () => void shutdown("SIGTERM"));
process.on("SIGINT", () => void shutdown("SIGINT"));
