import { ConfigError } from "./errors.ts";

export type LogLevel = "debug" | "info" | "warn" | "error" | "silent";

export interface Config {
  port: number;
  host: string;
  /** A filesystem path for bun:sqlite, or `:memory:`. */
  databasePath: string;
  redisUrl: string;
  logLevel: LogLevel;
  queuePrefix: string;
}

type Env = Record<string, string | undefined>;

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
  return {
    port: port(env),
    host: env.HOST ?? "127.0.0.1",
    databasePath: databasePathFromUrl(env.DATABASE_URL ?? "file:./data/onboarding.sqlite"),
    redisUrl: redisUrl(env),
    logLevel,
    queuePrefix,
  };
}

/** For entry points: load the config or stop the process with the reason. */
export function loadConfigOrExit(env: Env = process.env): Config {
  try {
    return loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`Configuration error: ${error.message}`);
      process.exit(78); // EX_CONFIG
    }
    throw error;
  }
}
