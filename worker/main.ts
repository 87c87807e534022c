import { Redis } from "ioredis";
import { systemClock } from "../shared/clock.ts";
import { loadConfigOrExit } from "../shared/config.ts";
import { openDatabaseOrExit } from "../shared/db/open.ts";
import { guardInstallationPrefix } from "../shared/jobs/queue-prefix-owner.ts";
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

// No job is taken before the queue prefix is known to be this installation's (see api/main.ts).
let working = false;
const installation = await guardInstallationPrefix(connection, {
  database,
  clock: systemClock,
  config,
  logger,
  waitMs: null,
  stop: (exitCode) => (working ? void shutdown("queue prefix taken", exitCode) : process.exit(exitCode)),
});

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
working = true;
let stopping = false;
async function shutdown(signal: string, exitCode = 0) {
  if (stopping) return;
  stopping = true;
  logger.info("worker stopping: finishing active jobs", { signal });
  // close() bounds each of its waits; this outer bound is the promise to the operator.
  const deadline = new Promise((resolve) => setTimeout(resolve, 15_000).unref());
  await Promise.race([worker.close(10_000), deadline]);
  connection.disconnect();
  await database.close();
  process.exit(exitCode);
}
process.on("SIGTERM", () => void shutdown("SIGTERM"));
process.on("SIGINT", () => void shutdown("SIGINT"));
// Readiness is announced a turn after the signal handlers are in place: a supervisor (or a
// test) that stops the process the moment it reads the line gets the clean shutdown above,
// never the default exit on SIGTERM (143), which a line written before them allowed.
await new Promise((resolve) => setImmediate(resolve));
logger.info("worker started", { queue_prefix: config.queuePrefix, installation_id: installation.id, concurrency: config.workerConcurrency, mail: config.smtpUrl ? "smtp" : "eml files" });
