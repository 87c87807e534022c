import { databaseFull, isDiskFull, noteDiskFull } from "../../shared/db/disk-full.ts";
import { databaseUnavailable, isConnectionFailure } from "../../shared/db/postgres.ts";
import { DomainError, type ErrorCode } from "../../shared/errors.ts";

/** The error types, in the order the documentation lists them. */
export const ERROR_TYPES = [
  "invalid_request_error",
  "authentication_error",
  "permission_error",
  "rate_limit_error",
  "not_found",
  "conflict",
  "internal_error",
] as const;
export type ErrorType = (typeof ERROR_TYPES)[number];

export const INTERNAL_ERROR_MESSAGE = "An internal error occurred. Quote the Request-Id header when reporting it.";

export interface ErrorSpec {
  status: number;
  type: ErrorType;
  /** When the service answers with this code; the API guide's error table is checked against it. */
  when: string;
  /**
   * A body the service really sends for this code: the OpenAPI examples are these, and the
   * response-validation test checks each against what a request that provokes it receives.
   */
  example: { message: string; field?: string };
}

/**
 * The one place that decides the HTTP status and error type of every error code, and the
 * one source of the error schema's type list, the OpenAPI examples and the guide's table.
 */
export const ERRORS: Record<ErrorCode, ErrorSpec> = {
  invalid_json: {
    status: 400, type: "invalid_request_error", when: "The body is not valid JSON (or not UTF-8).",
    example: { message: "The request body is not valid JSON." },
  },
  invalid_string: {
    status: 400, type: "invalid_request_error",
    when: "A string has the wrong format (datetime, e-mail, slug, hostname) or holds characters that would not survive storage.",
    example: { message: "Invalid datetime", field: "cursor" },
  },
  invalid_type: {
    status: 400, type: "invalid_request_error", when: "A value has the wrong JSON type, or a query parameter is given twice.",
    example: { message: "'limit' must be an integer.", field: "limit" },
  },
  invalid_enum_value: {
    status: 400, type: "invalid_request_error", when: "A value is not one of the allowed values.",
    example: { message: "'phase' must be one of: before_getting_started, program_design, review, program_buildout, internal_qa, launch, completed.", field: "phase" },
  },
  missing_field: {
    status: 400, type: "invalid_request_error", when: "A required field is absent.",
    example: { message: "Missing required field 'name'.", field: "name" },
  },
  unknown_field: {
    status: 400, type: "invalid_request_error", when: "A body field or query parameter the endpoint does not know.",
    example: { message: "Unknown field 'nmae'.", field: "nmae" },
  },
  too_small: {
    status: 400, type: "invalid_request_error", when: "A number, string, or the `Idempotency-Key` header is below its minimum.",
    example: { message: "'limit' is too small: expected integer to be greater or equal to 1.", field: "limit" },
  },
  too_big: {
    status: 400, type: "invalid_request_error", when: "A number, string, `metadata`, nesting depth or the `Idempotency-Key` header is beyond its maximum.",
    example: { message: "'limit' is too big: expected integer to be less or equal to 100.", field: "limit" },
  },
  body_too_large: {
    status: 413, type: "invalid_request_error", when: "The body is over 1 MiB; it is refused before it is read whole.",
    example: { message: "The request body exceeds 1048576 bytes." },
  },
  unsupported_media_type: {
    status: 415, type: "invalid_request_error", when: "A non-empty body not sent as `application/json` (or a `+json` type).",
    example: { message: "Request bodies must be JSON sent with 'Content-Type: application/json' (got 'text/plain')." },
  },
  method_not_allowed: {
    status: 405, type: "invalid_request_error", when: "The path exists but not with this method; `Allow` lists the methods that work.",
    example: { message: "PUT is not allowed on /api/v1/customers; allowed: GET, POST, OPTIONS." },
  },
  missing_api_key: {
    status: 401, type: "authentication_error", when: "No `Authorization` header, or nothing after `Bearer `.",
    example: { message: "No API key provided. Send 'Authorization: Bearer <API key>'." },
  },
  invalid_api_key: {
    status: 401, type: "authentication_error", when: "A well-formed key that does not exist.",
    example: { message: "Invalid API key provided: svc_4fT9qLm2…" },
  },
  malformed_authorization_header: {
    status: 401, type: "authentication_error", when: "Not `Bearer <key>`: another scheme, a colon, white space in or after the key.",
    example: { message: "'Bearer' must be followed by a space, not a colon. Send 'Authorization: Bearer <API key>'." },
  },
  api_key_revoked: {
    status: 401, type: "authentication_error", when: "The key was revoked; refused from the very next request.",
    example: { message: "The API key svc_4fT9qLm2… has been revoked." },
  },
  customer_not_found: {
    status: 404, type: "not_found", when: "No customer with that reference in your workspace (deleted, never existed, or another workspace's).",
    example: { message: "No such customer: '42'." },
  },
  contact_not_found: {
    status: 404, type: "not_found", when: "No such contact under that customer.",
    example: { message: "No such contact: '7'." },
  },
  onboarding_not_found: {
    status: 404, type: "not_found", when: "No such onboarding in your workspace.",
    example: { message: "No such onboarding: '12'." },
  },
  event_not_found: {
    status: 404, type: "not_found", when: "No such event in your workspace (never existed, another workspace's, or older than `EVENTS_RETENTION`).",
    example: { message: "No such event: 'evt_01JD0000000000000000000000'." },
  },
  webhook_endpoint_not_found: {
    status: 404, type: "not_found", when: "No such webhook endpoint in your workspace (never existed, another workspace's, or deleted).",
    example: { message: "No such webhook endpoint: 'we_01JD0000000000000000000000'." },
  },
  route_not_found: {
    status: 404, type: "not_found", when: "No endpoint has this path.",
    example: { message: "No route matches GET /api/v1/customer." },
  },
  slug_taken: {
    status: 409, type: "conflict", when: "Another customer of the workspace has this slug.",
    example: { message: "A customer with slug 'acme-corp' already exists.", field: "slug" },
  },
  webhook_endpoint_limit: {
    status: 409, type: "conflict", when: "The workspace already has 16 webhook endpoints, the most it may have.",
    example: { message: "A workspace may have at most 16 webhook endpoints; delete one first." },
  },
  url_not_allowed: {
    status: 400, type: "invalid_request_error", when: "The webhook `url` is not https://, carries credentials, or names (or resolves to) a loopback, private, link-local, multicast or unspecified address.",
    example: { message: "127.0.0.1 is a loopback address: webhooks go only to public addresses.", field: "url" },
  },
  test_mode_outbound: {
    status: 403, type: "permission_error", when: "A test key asked for something that reaches outside the service (a webhook ping): test keys never send anything.",
    example: { message: "Test keys never send anything outside the service; ping with a live key." },
  },
  idempotency_key_reused: {
    status: 409, type: "conflict", when: "The `Idempotency-Key` was used before with another method, path or body.",
    example: { message: "This Idempotency-Key was already used with a different request (method, path or body). Use a new key for a new operation." },
  },
  idempotency_key_in_use: {
    status: 409, type: "conflict", when: "The first request with this `Idempotency-Key` has not finished; comes with `Retry-After: 1`.",
    example: { message: "A request with this Idempotency-Key is still being processed. Retry after the Retry-After header's seconds." },
  },
  cursor_expired: {
    status: 410, type: "invalid_request_error",
    when: "The `after` cursor points before events the feed no longer holds (older than `EVENTS_RETENTION`, or the database was restored from a backup): re-sync from the lists.",
    example: { message: "Events after this cursor are no longer retained (EVENTS_RETENTION). Take a new cursor from GET /api/v1/events/cursor and re-sync from the lists.", field: "after" },
  },
  rate_limited: {
    status: 429, type: "rate_limit_error", when: "The key (or, for failed authentication, the address) is over its limit; comes with `Retry-After`.",
    example: { message: "Too many requests: 60 per 60 seconds for this key. Retry after 12 s." },
  },
  internal_error: {
    status: 500, type: "internal_error", when: "An unexpected failure; details stay in the log under the `Request-Id`.",
    example: { message: INTERNAL_ERROR_MESSAGE },
  },
  service_unavailable: {
    // A dependency (the database's write lock, say) is busy or away: always sent with Retry-After.
    status: 503, type: "internal_error", when: "A dependency (the database, or Redis where there is no fallback) is busy or away; comes with `Retry-After`.",
    example: { message: "The database is busy; retry after the Retry-After header's seconds." },
  },
};

export const statusOf = (code: ErrorCode): number => ERRORS[code].status;
export const typeOf = (code: ErrorCode): ErrorType => ERRORS[code].type;

export interface ErrorBody {
  error: { type: ErrorType; code: ErrorCode; message: string; field?: string };
}

const JSON_HEADERS = { "content-type": "application/json" } as const;

/**
 * Turns anything thrown into the documented error response. Unexpected errors become a bare
 * 500 `internal_error`: their message, stack and any SQL stay in the log, never the body.
 */
export function errorResponse(
  error: unknown,
  onUnexpected: (error: unknown) => void,
  extraHeaders?: Record<string, string>,
): Response {
  // A PostgreSQL connection lost outside a transaction (a read on the pool) is the same
  // answer as inside one: the database is away, retry shortly.
  if (!(error instanceof DomainError) && isConnectionFailure(error)) error = databaseUnavailable(error);
  // Out of space: the transaction rolled back; a retry succeeds once space is free.
  if (!(error instanceof DomainError) && isDiskFull(error)) {
    noteDiskFull();
    error = databaseFull(error);
  }
  const known = error instanceof DomainError ? error : null;
  if (!known) onUnexpected(error);
  const code: ErrorCode = known?.code ?? "internal_error";
  const body: ErrorBody = {
    error: {
      type: typeOf(code),
      code,
      message: known?.message ?? INTERNAL_ERROR_MESSAGE,
      ...(known?.field !== undefined ? { field: known.field } : {}),
    },
  };
  const headers: Record<string, string> = { ...JSON_HEADERS, ...extraHeaders };
  if (known?.retryAfterSeconds !== undefined) headers["retry-after"] = String(known.retryAfterSeconds);
  return new Response(JSON.stringify(body), { status: statusOf(code), headers });
}
