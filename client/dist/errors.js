/** Every error this library throws on purpose extends this one: `catch (e) { if (e instanceof OnboardingError) … }`. */
export class OnboardingError extends Error {
    name = "OnboardingError";
}
/**
 * The service answered with an error status. Built from the contract's error body
 * (`{"error":{"type","code","message","field"?}}`); program against `code`.
 *
 * An answer that is not the service's error body (a proxy's HTML 502, say) still becomes one
 * of these, with code `unexpected_response` and the type its status implies.
 */
export class OnboardingApiError extends OnboardingError {
    name = "OnboardingApiError";
    /** The HTTP status. */
    status;
    /** The broad class, which fixes the status (`not_found`, `conflict`, …). */
    type;
    /** The precise reason. New codes may appear within v1, hence the open string. */
    code;
    /** The input at fault, dotted for nested fields (`metadata.crm.id`), or a header name. */
    field;
    /** The answer's `Request-Id`: quote it when you report a problem. */
    requestId;
    /** `Retry-After` in seconds, when the answer carried one (429, 503, 409 `idempotency_key_in_use`). */
    retryAfter;
    constructor(init) {
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
    name = "OnboardingConnectionError";
    code;
    /** How many attempts were made (1 + retries). */
    attempts;
    /** The `Idempotency-Key` every attempt carried (POST only). */
    idempotencyKey;
    constructor(code, message, options) {
        super(message, { cause: options.cause });
        this.code = code;
        this.attempts = options.attempts;
        this.idempotencyKey = options.idempotencyKey;
    }
}
/** `verifyWebhook` refused a delivery: treat it as not from the service. */
export class WebhookVerificationError extends OnboardingError {
    name = "WebhookVerificationError";
    code;
    constructor(code, message) {
        super(message);
        this.code = code;
    }
}
