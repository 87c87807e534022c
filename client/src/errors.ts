import type { ErrorCode, ErrorType } from "./types.js";

/** Every error this library throws on purpose extends this one: `catch (e) { if (e instanceof OnboardingError) … }`. */
export class OnboardingError extends Error {
  override name = "OnboardingError";
}

/**
 * The service answered with an error status. Built from the contract's error body
 * (`{"error":{"type","code","message","field"?}}`); program against `code`.
 *
 * An answer that is not the service's error body (a proxy's HTML 502, say) still becomes one
 * of these, with code `unexpected_response` and the type its status implies.
 */
export class OnboardingApiError extends OnboardingError {
  override name = "OnboardingApiError";
  /** The HTTP status. */
  readonly status: number;
  /** The broad class, which fixes the status (`not_found`, `conflict`, …). */
  readonly type: ErrorType;
  /** The precise reason. New codes may appear within v1, hence the open string. */
  readonly code: ErrorCode | "unexpected_response" | (string & {});
  /** The input at fault, dotted for nested fields (`metadata.crm.id`), or a header name. */
  readonly field: string | undefined;
  /** The answer's `Request-Id`: quote it when you report a problem. */
  readonly requestId: string | null;
  /** `Retry-After` in seconds, when the answer carried one (429, 503, 409 `idempotency_key_in_use`). */
  readonly retryAfter: number | null;

  constructor(init: { status: number; type: ErrorType; code: string; message: string; field?: string | undefined; requestId: string | null; retryAfter: number | null }) {
    super(init.message);
    this.status = init.status;
    this.type = init.type;
    this.code = init.code;
    this.field = init.field;
    this.requestId = init.requestId;
    this.retryAfter = init.retryAfter;
  }
}

/**
 * No answer came: the connection was refused, dropped or reset, or the answer did not arrive
 * within `timeoutMs`, on every attempt. `code` says which of the two happened last; `cause` is
 * the underlying error of the last attempt. Whether a POST took effect is unknown: send it
 * again with the same `idempotencyKey` (`error.idempotencyKey`) and it runs at most once.
 */
export class OnboardingConnectionError extends OnboardingError {
  override name = "OnboardingConnectionError";
  readonly code: "connection_failed" | "timeout";
  /** How many attempts were made (1 + retries). */
  readonly attempts: number;
  /** The `Idempotency-Key` every attempt carried (POST only). */
  readonly idempotencyKey: string | undefined;

  constructor(code: "connection_failed" | "timeout", message: string, options: { cause: unknown; attempts: number; idempotencyKey: string | undefined }) {
    super(message, { cause: options.cause });
    this.code = code;
    this.attempts = options.attempts;
    this.idempotencyKey = options.idempotencyKey;
  }
}

/** `verifyWebhook` refused a delivery: treat it as not from the service. */
export class WebhookVerificationError extends OnboardingError {
  override name = "WebhookVerificationError";
  readonly code: "missing_header" | "invalid_timestamp" | "timestamp_too_old" | "timestamp_too_new" | "invalid_signature" | "invalid_body";

  constructor(code: WebhookVerificationError["code"], message: string) {
    super(message);
    this.code = code;
  }
}
