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
  "route_not_found",
  "slug_taken",
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
