import { DomainError, type ErrorCode } from "../../shared/errors.ts";

export type ErrorType =
  | "invalid_request_error"
  | "authentication_error"
  | "permission_error"
  | "rate_limit_error"
  | "not_found"
  | "conflict"
  | "internal_error";

/** The one place that decides the HTTP status and error type of every error code. */
const HTTP: Record<ErrorCode, readonly [status: number, type: ErrorType]> = {
  invalid_json: [400, "invalid_request_error"],
  invalid_string: [400, "invalid_request_error"],
  invalid_type: [400, "invalid_request_error"],
  invalid_enum_value: [400, "invalid_request_error"],
  missing_field: [400, "invalid_request_error"],
  unknown_field: [400, "invalid_request_error"],
  too_small: [400, "invalid_request_error"],
  too_big: [400, "invalid_request_error"],
  body_too_large: [413, "invalid_request_error"],
  unsupported_media_type: [415, "invalid_request_error"],
  method_not_allowed: [405, "invalid_request_error"],
  missing_api_key: [401, "authentication_error"],
  invalid_api_key: [401, "authentication_error"],
  malformed_authorization_header: [401, "authentication_error"],
  api_key_revoked: [401, "authentication_error"],
  customer_not_found: [404, "not_found"],
  contact_not_found: [404, "not_found"],
  onboarding_not_found: [404, "not_found"],
  route_not_found: [404, "not_found"],
  slug_taken: [409, "conflict"],
  idempotency_key_reused: [409, "conflict"],
  idempotency_key_in_use: [409, "conflict"],
  rate_limited: [429, "rate_limit_error"],
  internal_error: [500, "internal_error"],
  // A dependency (the database's write lock, say) is busy or away: always sent with Retry-After.
  service_unavailable: [503, "internal_error"],
};

export const statusOf = (code: ErrorCode): number => HTTP[code][0];
export const typeOf = (code: ErrorCode): ErrorType => HTTP[code][1];

export interface ErrorBody {
  error: { type: ErrorType; code: ErrorCode; message: string; field?: string };
}

const JSON_HEADERS = { "content-type": "application/json" } as const;

/**
 * Turns anything thrown into the contract's error response. Unexpected errors become a bare
 * 500 `internal_error`: their message, stack and any SQL stay in the log, never the body.
 */
export function errorResponse(
  error: unknown,
  onUnexpected: (error: unknown) => void,
  extraHeaders?: Record<string, string>,
): Response {
  const known = error instanceof DomainError ? error : null;
  if (!known) onUnexpected(error);
  const code: ErrorCode = known?.code ?? "internal_error";
  const body: ErrorBody = {
    error: {
      type: typeOf(code),
      code,
      message: known?.message ?? "An internal error occurred. Quote the Request-Id header when reporting it.",
      ...(known?.field !== undefined ? { field: known.field } : {}),
    },
  };
  const headers: Record<string, string> = { ...JSON_HEADERS, ...extraHeaders };
  if (known?.retryAfterSeconds !== undefined) headers["retry-after"] = String(known.retryAfterSeconds);
  return new Response(JSON.stringify(body), { status: statusOf(code), headers });
}
