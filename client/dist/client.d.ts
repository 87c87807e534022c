import { Contacts } from "./resources/contacts.js";
import { Customers } from "./resources/customers.js";
import { Events } from "./resources/events.js";
import { Onboardings } from "./resources/onboardings.js";
import { Reports } from "./resources/reports.js";
import { WebhookEndpoints } from "./resources/webhook-endpoints.js";
import { type RequestOptions } from "./transport.js";
import type { Me } from "./types.js";
export interface ClientOptions {
    /** `svc_…` (live) or `svc_test_…` (test). */
    apiKey: string;
    /** Where the service answers: its `PUBLIC_URL`, e.g. `https://onboarding.example.com` (a trailing `/api/v1` is accepted too). */
    baseUrl: string;
    /** Retries after a first attempt that got no answer, 429, 409 `idempotency_key_in_use` or 5xx (default 2). */
    maxRetries?: number;
    /** The longest one attempt may take (default 30000 ms). */
    timeoutMs?: number;
    /** A `fetch` of your own (a proxy agent, instrumentation); the global one by default. */
    fetch?: typeof globalThis.fetch;
}
/**
 * The Customer Onboarding Service's API, typed from its OpenAPI document.
 *
 * ```ts
 * const client = new OnboardingClient({ apiKey: process.env.ONBOARDING_API_KEY!, baseUrl: "https://onboarding.example.com" });
 * for await (const onboarding of client.onboardings.list({ phase: "review" })) console.log(onboarding.id);
 * ```
 */
export declare class OnboardingClient {
    readonly customers: Customers;
    readonly contacts: Contacts;
    readonly onboardings: Onboardings;
    readonly events: Events;
    readonly webhookEndpoints: WebhookEndpoints;
    readonly reports: Reports;
    private readonly transport;
    constructor(options: ClientOptions);
    /** The calling key and its workspace. */
    me(options?: RequestOptions): Promise<Me>;
}
