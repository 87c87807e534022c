/** Waits, retries and deadlines: the timing rules of every request, in one place. */
/** The first retry waits 250–500 ms; each further one doubles, up to 8 s. */
const BASE_DELAY_MS = 500;
const MAX_DELAY_MS = 8_000;
/** A `Retry-After` longer than this is not waited out: the error goes to the caller at once. */
export const MAX_RETRY_AFTER_MS = 60_000;
/**
 * Exponential backoff with "equal jitter": half the step fixed, half random, so clients that
 * failed together do not retry together, and none retries sooner than half its step.
 */
export function backoffMs(retry, maxMs = MAX_DELAY_MS) {
    const step = Math.min(maxMs, BASE_DELAY_MS * 2 ** retry);
    return step / 2 + Math.random() * (step / 2);
}
/**
 * `Retry-After` in milliseconds: whole seconds (what the service sends) or an HTTP date.
 * Null when absent or unreadable.
 */
export function retryAfterMs(value, now = Date.now()) {
    if (value === null || value.trim() === "")
        return null;
    if (/^\d+$/.test(value.trim()))
        return Number(value.trim()) * 1000;
    const at = Date.parse(value);
    return Number.isNaN(at) ? null : Math.max(0, at - now);
}
/** The wait the server asked for, never less, plus up to 10% so a crowd told "1 s" spreads out. */
export const afterRetryAfter = (ms) => ms + Math.random() * Math.max(ms * 0.1, 50);
/** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms, signal) {
    return new Promise((resolve, reject) => {
        if (signal?.aborted)
            return reject(signal.reason);
        const onAbort = () => {
            clearTimeout(timer);
            reject(signal.reason);
        };
        const timer = setTimeout(() => {
            signal?.removeEventListener("abort", onAbort);
            resolve();
        }, ms);
        signal?.addEventListener("abort", onAbort, { once: true });
    });
}
/**
 * One attempt's signal: aborts when the caller's signal does or when `timeoutMs` passes,
 * whichever comes first. (`AbortSignal.any` would do, but only from Node 20.3.)
 */
export function attemptSignal(timeoutMs, caller) {
    const controller = new AbortController();
    let expired = false;
    const timer = setTimeout(() => {
        expired = true;
        controller.abort(new DOMException(`no answer within ${timeoutMs} ms`, "TimeoutError"));
    }, timeoutMs);
    const onAbort = () => controller.abort(caller.reason);
    if (caller?.aborted)
        controller.abort(caller.reason);
    else
        caller?.addEventListener("abort", onAbort, { once: true });
    return {
        signal: controller.signal,
        timedOut: () => expired,
        done: () => {
            clearTimeout(timer);
            caller?.removeEventListener("abort", onAbort);
        },
    };
}
