import { rulesFrom, type OutboundRules } from "./webhooks/outbound-rules.ts";
import { ConfigError } from "./errors.ts";
import { withInstallationFiles } from "./installation-files.ts";
import { lifetimesFrom, type Lifetimes } from "./retention.ts";

export type LogLevel = "debug" | "info" | "warn" | "error" | "silent";

export interface Config {
  port: number;
  host: string;
  /** Where users and clients reach the service (no trailing slash): the OpenAPI `servers` URL, invite links, every absolute link, the admin area's Origin check, secure cookies when https. */
  publicUrl: string;
  /** Which engine `DATABASE_URL` names: SQLite (the embedded default) or PostgreSQL. */
  database: DatabaseConfig;
  redisUrl: string;
  logLevel: LogLevel;
  queuePrefix: string;
  /**
   * QUEUE_PREFIX_TAKEOVER: start even though the queue prefix's marker in Redis names another
   * installation, and mark the prefix as this one's (shared/jobs/queue-prefix-owner.ts).
   */
  queuePrefixTakeover: boolean;
  /** Where generated secrets, a private Redis's data and .eml files live. */
  dataDir: string;
  /** Encrypts workspace Slack tokens at rest; any string of at least 32 characters. */
  secretKey: string | null;
  /** Guards /metrics and /admin/queues. */
  adminToken: string | null;
  /** SMTP server for reminder e-mails; without it they are written as .eml files under dataDir/mail. */
  smtpUrl: string | null;
  mailFrom: string;
  /** Used for workspaces that have no Slack token of their own. */
  slackBotToken: string | null;
  /** Overrides Slack's Web API address (a loopback stand-in in tests). */
  slackApiUrl: string | null;
  workerConcurrency: { records: number; outbound: number; webhooks: number };
  /** WEBHOOK_ALLOW_HTTP, WEBHOOK_ALLOW_PRIVATE_NETWORKS, WEBHOOK_DNS_SERVERS. */
  webhookRules: OutboundRules;
  /** How long a job's lock lasts: a worker dead for this long has its jobs handed to another. */
  workerLockSeconds: number;
  reminderScanSeconds: number;
  /** How long each table that grows with traffic keeps its rows (shared/retention.ts). */
  lifetimes: Lifetimes;
  /** Seconds between the worker's pruning runs. */
  retentionPruneSeconds: number;
  /** How long an API request may wait, without blocking, for SQLite's write lock before it answers 503. */
  databaseBusyTimeoutMs: number;
  /** How long the API waits for any one Redis command before falling back (rate limits) or backing off (relay). */
  redisCommandTimeoutMs: number;
  /** Seconds an HTTP connection may stay silent before the API closes it. */
  httpIdleTimeoutSeconds: number;
  /** Seconds after which a side effect handed to Redis without a recorded outcome is checked, and handed over again if Redis lost it. */
  outboxReconcileSeconds: number;
}

type Env = Record<string, string | undefined>;

export type DatabaseConfig =
  /** A filesystem path for bun:sqlite, or `:memory:`. */
  | { engine: "sqlite"; path: string }
  /** A `postgres://` or `postgresql://` URL, and how many connections one process may hold. */
  | { engine: "postgres"; url: string; poolSize: number };

const LOG_LEVELS: readonly LogLevel[] = ["debug", "info", "warn", "error", "silent"];

function port(env: Env): number {
  const raw = env.PORT ?? "3000";
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value < 1 || value > 65535) {
    throw new ConfigError(`PORT must be an integer from 1 to 65535 (got '${raw}').`);
  }
  return value;
}

/** `file:./data/x.sqlite`, `file::memory:`, `:memory:` or a bare path. */
export function databasePathFromUrl(raw: string): string {
  const path = raw.startsWith("file:") ? raw.slice("file:".length) : raw;
  if (path === "") throw new ConfigError("DATABASE_URL must name a file, e.g. file:./data/onboarding.sqlite.");
  return path;
}

/**
 * `DATABASE_URL` picks the engine: `file:…`, a path or `:memory:` is SQLite; `postgres://` or
 * `postgresql://` is PostgreSQL. Any other scheme is refused rather than read as a file name
 * (`postgres:` once became a folder, and the service ran on SQLite without a word).
 */
export function databaseFromEnv(env: Env): DatabaseConfig {
  const raw = env.DATABASE_URL ?? "file:./data/onboarding.sqlite";
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]+):/.exec(raw)?.[1]?.toLowerCase();
  if (scheme === "postgres" || scheme === "postgresql") {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new ConfigError(`DATABASE_URL is not a valid PostgreSQL URL (got '${redactPassword(raw)}').`);
    }
    if (!url.host) throw new ConfigError(`DATABASE_URL must name a PostgreSQL host, e.g. postgres://user@db.example:5432/onboarding (got '${redactPassword(raw)}').`);
    return { engine: "postgres", url: raw, poolSize: positiveInt(env, "DATABASE_POOL_SIZE", 10, 1000) };
  }
  if (scheme !== undefined && scheme !== "file") {
    throw new ConfigError(
      `DATABASE_URL has the unknown scheme '${scheme}:'; use file:<path> (or a bare path, or :memory:) for SQLite, postgres:// or postgresql:// for PostgreSQL.`,
    );
  }
  return { engine: "sqlite", path: databasePathFromUrl(raw) };
}

/** A database URL fit for a log line or an error message. */
export function redactPassword(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/@]*:)[^@/]*@/i, "$1***@");
}

function redisUrl(env: Env): string {
  const raw = env.REDIS_URL ?? "redis://127.0.0.1:6379";
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`REDIS_URL is not a URL (got '${raw}'); use redis://host:port.`);
  }
  if (url.protocol !== "redis:" && url.protocol !== "rediss:") {
    throw new ConfigError(`REDIS_URL must start with redis:// or rediss:// (got '${raw}').`);
  }
  return raw;
}

function positiveInt(env: Env, name: string, fallback: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value < 1 || value > max) throw new ConfigError(`${name} must be an integer from 1 to ${max} (got '${raw}').`);
  return value;
}

function optionalUrl(env: Env, name: string, protocols: string[]): string | null {
  const raw = env[name];
  if (raw === undefined || raw === "") return null;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`${name} is not a URL (got '${raw}').`);
  }
  if (!protocols.includes(url.protocol)) throw new ConfigError(`${name} must start with ${protocols.map((p) => `${p}//`).join(" or ")} (got '${raw}').`);
  return raw;
}

/**
 * PUBLIC_URL, else `http://HOST:PORT`; a wildcard HOST (0.0.0.0, ::) is no address a client
 * can use, so the default then names loopback instead.
 */
function publicUrl(env: Env, host: string, port: number): string {
  const raw = env.PUBLIC_URL;
  if (raw === undefined || raw === "") {
    const reachable = host === "0.0.0.0" || host === "::" || host === "" ? "127.0.0.1" : host;
    return `http://${reachable.includes(":") ? `[${reachable}]` : reachable}:${port}`;
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`PUBLIC_URL is not a URL (got '${raw}'); use e.g. https://onboarding.example.com.`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new ConfigError(`PUBLIC_URL must start with http:// or https:// (got '${raw}').`);
  if (url.search || url.hash) throw new ConfigError(`PUBLIC_URL must not have a query or fragment (got '${raw}').`);
  return raw.replace(/\/+$/, "");
}

/** Reads and checks the environment once; every failure names the variable at fault. */
export function loadConfig(env: Env = process.env): Config {
  const logLevel = (env.LOG_LEVEL ?? "info") as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(", ")} (got '${env.LOG_LEVEL}').`);
  }
  const queuePrefix = env.QUEUE_PREFIX ?? "bull";
  if (!/^[A-Za-z0-9_.-]{1,64}$/.test(queuePrefix)) {
    throw new ConfigError(`QUEUE_PREFIX must be 1-64 letters, digits, '_', '.' or '-' (got '${queuePrefix}').`);
  }
  const secretKey = env.SECRET_KEY || null;
  if (secretKey !== null && secretKey.length < 32) {
    throw new ConfigError("SECRET_KEY must be at least 32 characters (npm start generates one under DATA_DIR when it is unset).");
  }
  const adminToken = env.ADMIN_TOKEN || null;
  if (adminToken !== null && adminToken.length < 16) throw new ConfigError("ADMIN_TOKEN must be at least 16 characters.");
  const host = env.HOST ?? "127.0.0.1";
  const takeover = (env.QUEUE_PREFIX_TAKEOVER ?? "").toLowerCase();
  if (!["", "0", "1", "false", "true"].includes(takeover)) {
    throw new ConfigError(`QUEUE_PREFIX_TAKEOVER must be 1 or 0 (got '${env.QUEUE_PREFIX_TAKEOVER}').`);
  }
  return {
    port: port(env),
    host,
    publicUrl: publicUrl(env, host, port(env)),
    database: databaseFromEnv(env),
    redisUrl: redisUrl(env),
    logLevel,
    queuePrefix,
    queuePrefixTakeover: takeover === "1" || takeover === "true",
    dataDir: env.DATA_DIR || "./data",
    secretKey,
    adminToken,
    smtpUrl: optionalUrl(env, "SMTP_URL", ["smtp:", "smtps:"]),
    mailFrom: env.MAIL_FROM || "Customer Onboarding <onboarding@localhost>",
    slackBotToken: env.SLACK_BOT_TOKEN || null,
    slackApiUrl: optionalUrl(env, "SLACK_API_URL", ["http:", "https:"]),
    workerConcurrency: {
      records: positiveInt(env, "WORKER_CONCURRENCY_RECORDS", 4, 256),
      outbound: positiveInt(env, "WORKER_CONCURRENCY_OUTBOUND", 8, 256),
      // Deliveries mostly wait on receivers (up to 15 s each): many at once cost little.
      webhooks: positiveInt(env, "WORKER_CONCURRENCY_WEBHOOKS", 16, 256),
    },
    webhookRules: rulesFrom(env),
    workerLockSeconds: positiveInt(env, "WORKER_LOCK_SECONDS", 30, 3600),
    reminderScanSeconds: positiveInt(env, "REMINDER_SCAN_SECONDS", 60, 86_400),
    lifetimes: lifetimesFrom(env),
    retentionPruneSeconds: positiveInt(env, "RETENTION_PRUNE_SECONDS", 600, 86_400),
    databaseBusyTimeoutMs: positiveInt(env, "DATABASE_BUSY_TIMEOUT_MS", 3000, 60_000),
    redisCommandTimeoutMs: positiveInt(env, "REDIS_COMMAND_TIMEOUT_MS", 500, 10_000),
    httpIdleTimeoutSeconds: positiveInt(env, "HTTP_IDLE_TIMEOUT_SECONDS", 10, 255),
    outboxReconcileSeconds: positiveInt(env, "OUTBOX_RECONCILE_SECONDS", 30, 3600),
  };
}

/**
 * The configuration of this installation: the environment, completed from DATA_DIR's
 * settings.json and secrets.json (shared/installation-files.ts). A bad value read from a file
 * says which file it came from.
 */
export function loadInstallationConfig(env: Env = process.env): Config {
  const { env: merged, fromFiles } = withInstallationFiles(env);
  try {
    return loadConfig(merged);
  } catch (error) {
    const culprit = error instanceof ConfigError ? fromFiles.find((f) => error.message.startsWith(`${f.name} `)) : undefined;
    if (culprit) throw new ConfigError(`${error instanceof Error ? error.message : error} (${culprit.name} was read from ${culprit.file}; the environment did not set it.)`);
    throw error;
  }
}

/** For entry points: load the installation's config or stop the process with the reason. */
export function loadConfigOrExit(env: Env = process.env): Config {
  try {
    return loadInstallationConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`Configuration error: ${error.message}`);
      process.exit(78); // EX_CONFIG
    }
    throw error;
  }
}
