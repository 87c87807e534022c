import pino from "pino";
import type { LogLevel } from "./config.ts";

export type LogFields = Record<string, unknown>;

export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  /** A logger whose every line also carries `fields` (one per request: its `request_id`). */
  child(fields: LogFields): Logger;
  /** Whether lines of `level` are written: a caller that builds fields per request asks first. */
  enabled(level: "debug" | "info" | "warn" | "error"): boolean;
}

/**
 * Secrets a careless field could carry. Callers log a key's prefix only; these paths are the
 * second line of defence, and a matching field is dropped from the line altogether.
 */
export const REDACTED_PATHS = [
  "authorization",
  "*.authorization",
  "headers.authorization",
  "*.headers.authorization",
  "key",
  "*.key",
  "api_key",
  "*.api_key",
  "token",
  "*.token",
  "admin_token",
  "secret_key",
  "slack_token",
  "*.slack_token",
  "password",
  "*.password",
];

function wrap(log: pino.Logger): Logger {
  return {
    debug: (msg, fields) => log.debug(fields ?? {}, msg),
    info: (msg, fields) => log.info(fields ?? {}, msg),
    warn: (msg, fields) => log.warn(fields ?? {}, msg),
    error: (msg, fields) => log.error(fields ?? {}, msg),
    child: (fields) => wrap(log.child(fields)),
    enabled: (level) => log.isLevelEnabled(level),
  };
}

/**
 * pino, writing one JSON object per line (`time` ISO 8601, `level` by name, `msg`) to stdout
 * synchronously, so a line is out before a crash; `write` replaces stdout (tests collect lines).
 */
export function createLogger(level: LogLevel, base: LogFields = {}, write?: (line: string) => unknown): Logger {
  const destination = write
    ? { write: (chunk: string) => void write(chunk.endsWith("\n") ? chunk.slice(0, -1) : chunk) }
    : pino.destination({ dest: 1, sync: true });
  const log = pino(
    {
      level,
      base,
      messageKey: "msg",
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: REDACTED_PATHS, remove: true },
    },
    destination,
  );
  return wrap(log);
}

export const silentLogger: Logger = createLogger("silent");
