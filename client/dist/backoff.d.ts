/** Waits, retries and deadlines: the timing rules of every request, in one place. */
/** A `Retry-After` longer than this is not waited out: the error goes to the caller at once. */
export declare const MAX_RETRY_AFTER_MS = 60000;
/**
 * Exponential backoff with "equal jitter": half the step fixed, half random, so clients that
 * failed together do not retry together, and none retries sooner than half its step.
 */
export declare function backoffMs(retry: number, maxMs?: number): number;
/**
 * `Retry-After` in milliseconds: whole seconds (what the service sends) or an HTTP date.
 * Null when absent or unreadable.
 */
export declare function retryAfterMs(value: string | null, now?: number): number | null;
/** The wait the server asked for, never less, plus up to 10% so a crowd told "1 s" spreads out. */
export declare const afterRetryAfter: (ms: number) => number;
/** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
export declare function sleep(ms: number, signal?: AbortSignal): Promise<void>;
/**
 * One attempt's signal: aborts when the caller's signal does or when `timeoutMs` passes,
 * whichever comes first. (`AbortSignal.any` would do, but only from Node 20.3.)
 */
export declare function attemptSignal(timeoutMs: number, caller?: AbortSignal): {
    signal: AbortSignal;
    timedOut: () => boolean;
    done: () => void;
};
