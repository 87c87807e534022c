/**
 * One request to the service, with everything the contract asks of a careful client: the key,
 * an `Idempotency-Key` on every POST (the same on each retry), a deadline per attempt, and
 * retries of what may succeed when tried again: no answer at all, 429, 409
 * `idempotency_key_in_use` and 5xx, with jittered exponential backoff or the `Retry-After`
 * the service asked for.
 */
import { afterRetryAfter, attemptSignal, backoffMs, MAX_RETRY_AFTER_MS, retryAfterMs, sleep } from "./backoff.js";
import { OnboardingApiError, OnboardingConnectionError } from "./errors.js";
import { VERSION } from "./version.js";
/** The type each status implies, for answers that are not the service's error body. */
function typeForStatus(status) {
    if (status === 401)
        return "authentication_error";
    if (status === 403)
        return "permission_error";
    if (status === 404)
        return "not_found";
    if (status === 409)
        return "conflict";
    if (status === 429)
        return "rate_limit_error";
    if (status >= 500)
        return "internal_error";
    return "invalid_request_error";
}
function apiError(status, text, headers) {
    const requestId = headers.get("request-id");
    const wait = retryAfterMs(headers.get("retry-after"));
    const retryAfter = wait === null ? null : Math.ceil(wait / 1000);
    try {
        const { error } = JSON.parse(text);
        if (error && typeof error.type === "string" && typeof error.code === "string" && typeof error.message === "string") {
            const field = typeof error.field === "string" ? error.field : undefined;
            return new OnboardingApiError({ status, type: error.type, code: error.code, message: error.message, field, requestId, retryAfter });
        }
    }
    catch {
        // Not JSON: described below.
    }
    const excerpt = text.length > 200 ? `${text.slice(0, 200)}…` : text;
    return new OnboardingApiError({ status, type: typeForStatus(status), code: "unexpected_response", message: `HTTP ${status} without the service's error body: ${excerpt}`, requestId, retryAfter });
}
/** What may succeed when sent again unchanged. */
export function isRetryable(error) {
    if (error instanceof OnboardingConnectionError)
        return true;
    if (!(error instanceof OnboardingApiError))
        return false;
    return error.status === 429 || error.status >= 500 || (error.status === 409 && error.code === "idempotency_key_in_use");
}
/** How long to wait before retry number `retry` (0 for the first) after `error`; null: do not wait it out. */
export function retryDelayMs(error, retry, maxBackoffMs) {
    if (error instanceof OnboardingApiError && error.retryAfter !== null) {
        const asked = error.retryAfter * 1000;
        return asked > MAX_RETRY_AFTER_MS ? null : afterRetryAfter(asked);
    }
    return backoffMs(retry, maxBackoffMs);
}
function queryString(query) {
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries(query ?? {})) {
        if (value === undefined || value === null)
            continue;
        params.set(name, Array.isArray(value) ? value.join(",") : String(value));
    }
    const text = params.toString();
    return text === "" ? "" : `?${text}`;
}
export class Transport {
    settings;
    constructor(settings) {
        this.settings = settings;
    }
    async request(call, options = {}) {
        const maxRetries = options.maxRetries ?? this.settings.maxRetries;
        const idempotencyKey = call.method === "POST" ? (options.idempotencyKey ?? globalThis.crypto.randomUUID()) : undefined;
        for (let attempt = 0;; attempt++) {
            let failure;
            try {
                return await this.attempt(call, idempotencyKey, options, attempt + 1);
            }
            catch (error) {
                if (!isRetryable(error))
                    throw error;
                failure = error;
            }
            const delay = attempt < maxRetries ? retryDelayMs(failure, attempt) : null;
            if (delay === null)
                throw failure;
            await sleep(delay, options.signal);
        }
    }
    async attempt(call, idempotencyKey, options, attempts) {
        const headers = {
            authorization: `Bearer ${this.settings.apiKey}`,
            accept: "application/json",
            "user-agent": `onboarding-client/${VERSION}`,
        };
        if (idempotencyKey !== undefined)
            headers["idempotency-key"] = idempotencyKey;
        const body = call.body === undefined ? undefined : JSON.stringify(call.body);
        if (body !== undefined)
            headers["content-type"] = "application/json";
        const deadline = attemptSignal(options.timeoutMs ?? this.settings.timeoutMs, options.signal);
        let status;
        let text;
        let responseHeaders;
        try {
            const response = await this.settings.fetch(`${this.settings.baseUrl}${call.path}${queryString(call.query)}`, {
                method: call.method,
                headers,
                body,
                signal: deadline.signal,
            });
            status = response.status;
            responseHeaders = response.headers;
            text = await response.text();
        }
        catch (error) {
            if (options.signal?.aborted)
                throw options.signal.reason;
            const timedOut = deadline.timedOut();
            const what = timedOut ? "no answer in time" : `no answer (${error?.message ?? String(error)})`;
            throw new OnboardingConnectionError(timedOut ? "timeout" : "connection_failed", `${call.method} ${call.path}: ${what} after ${attempts} attempt${attempts === 1 ? "" : "s"}`, {
                cause: error,
                attempts,
                idempotencyKey,
            });
        }
        finally {
            deadline.done();
        }
        if (status < 200 || status > 299)
            throw apiError(status, text, responseHeaders);
        try {
            return JSON.parse(text);
        }
        catch {
            throw new OnboardingApiError({
                status,
                type: typeForStatus(status),
                code: "unexpected_response",
                message: `HTTP ${status} with a body that is not JSON`,
                requestId: responseHeaders.get("request-id"),
                retryAfter: null,
            });
        }
    }
}
