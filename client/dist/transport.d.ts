import { OnboardingApiError, OnboardingConnectionError } from "./errors.js";
/** Per-call settings; each overrides the client's own for this one call. */
export interface RequestOptions {
    /** POST only: the `Idempotency-Key`. Generated (a random UUID) when absent; the same on every retry. */
    idempotencyKey?: string;
    /** Aborts the call, also while it waits to retry; the promise rejects with the signal's reason. */
    signal?: AbortSignal;
    /** The longest one attempt may take, answer body included. */
    timeoutMs?: number;
    /** Retries after the first attempt (0: none). */
    maxRetries?: number;
}
export type QueryValue = string | number | boolean | readonly string[] | null | undefined;
export interface Call {
    method: "GET" | "POST" | "PATCH" | "DELETE";
    /** From `/api/v1/…`, path segments already encoded. */
    path: string;
    query?: {
        [name: string]: QueryValue;
    } | undefined;
    /** Sent as JSON; a POST without one sends no body (the service reads it as `{}`). */
    body?: unknown;
}
export interface TransportSettings {
    apiKey: string;
    baseUrl: string;
    maxRetries: number;
    timeoutMs: number;
    fetch: typeof globalThis.fetch;
}
/** What may succeed when sent again unchanged. */
export declare function isRetryable(error: unknown): error is OnboardingApiError | OnboardingConnectionError;
/** How long to wait before retry number `retry` (0 for the first) after `error`; null: do not wait it out. */
export declare function retryDelayMs(error: OnboardingApiError | OnboardingConnectionError, retry: number, maxBackoffMs?: number): number | null;
export declare class Transport {
    private readonly settings;
    constructor(settings: TransportSettings);
    request<T>(call: Call, options?: RequestOptions): Promise<T>;
    private attempt;
}
