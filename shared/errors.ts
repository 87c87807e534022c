/**
 * Domain errors carry a documented error code, a message for humans and, where one input is at
 * fault, its field. They know nothing of HTTP: `api/http/error-map.ts` alone decides the
 * status and error type of every code.
 */
export const ERROR_CODES = [
  "invalid_json",
  "invalid_string",
  "invalid_type",
  "invalid_enum_value",
  "missing_field",
  "unknown_field",
  "too_small",
  "too_big",
  "body_too_large",
  "unsupported_media_type",
  "method_not_allowed",
  "missing_api_key",
  "invalid_api_key",
  "malformed_authorization_header",
  "api_key_revoked",
  "customer_not_found",
  "contact_not_found",
  "onboarding_not_found",
  "event_not_found",
  "webhook_endpoint_not_found",
  "route_not_found",
  "slug_taken",
  "webhook_endpoint_limit",
  "url_not_allowed",
  "test_mode_outbound",
  "cursor_expired",
  "idempotency_key_reused",
  "idempotency_key_in_use",
  "rate_limited",
  "internal_error",
  "service_unavailable",
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly field?: string,
    /** Seconds after which a retry may succeed (rate limits, an idempotency key in use). */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = "DomainError";
  }
}

export const notFound = (kind: "customer" | "contact" | "onboarding", ref?: string) =>
  new DomainError(
    `${kind}_not_found`,
    ref === undefined ? `No such ${kind}.` : `No such ${kind}: '${ref}'.`,
  );

/** Thrown by config parsing; the message always names the variable. */
export class ConfigError extends Error {
  override name = "ConfigError";
}

/**
 * Whether `error` comes from a database driver: its message may quote the failed SQL and its
 * parameters (stored data), so it never goes into a response or a log at `info` or above.
 */
export function isDriverError(error: unknown): boolean {
  const e = error as { name?: unknown; code?: unknown; errno?: unknown } | null;
  if (!e || typeof e !== "object") return false;
  if (typeof e.name === "string" && /postgres|sqlite/i.test(e.name)) return true;
  return typeof e.code === "string" && /^(ERR_POSTGRES_|SQLITE_)/.test(e.code);
}

/** What a log line at `info` or above may say of an error: a driver's only by name and code. */
export function describeError(error: unknown): Record<string, unknown> {
  if (!(error instanceof Error)) return { value: isDriverError(error) ? "driver error" : String(error) };
  const e = error as Error & { code?: unknown; errno?: unknown };
  if (isDriverError(error)) return { name: e.name, code: e.code, errno: e.errno };
  return { name: e.name, message: e.message };
}

/** The whole of an error, message and stack, for a `debug` log line only. */
export function errorDetail(error: unknown): Record<string, unknown> {
  return error instanceof Error ? { name: error.name, message: error.message, stack: error.stack } : { value: String(error) };
}
