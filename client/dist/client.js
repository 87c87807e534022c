import { Contacts } from "./resources/contacts.js";
import { Customers } from "./resources/customers.js";
import { Events } from "./resources/events.js";
import { Onboardings } from "./resources/onboardings.js";
import { Reports } from "./resources/reports.js";
import { WebhookEndpoints } from "./resources/webhook-endpoints.js";
import { Transport } from "./transport.js";
/**
 * The Customer Onboarding Service's API, typed from its OpenAPI document.
 *
 * ```ts
 * const client = new OnboardingClient({ apiKey: process.env.ONBOARDING_API_KEY!, baseUrl: "https://onboarding.example.com" });
 * for await (const onboarding of client.onboardings.list({ phase: "review" })) console.log(onboarding.id);
 * ```
 */
export class OnboardingClient {
    customers;
    contacts;
    onboardings;
    events;
    webhookEndpoints;
    reports;
    transport;
    constructor(options) {
        const { apiKey, baseUrl, maxRetries = 2, timeoutMs = 30_000 } = options;
        if (typeof apiKey !== "string" || apiKey === "")
            throw new TypeError("OnboardingClient needs an apiKey (svc_… or svc_test_…).");
        let url;
        try {
            url = new URL(baseUrl);
        }
        catch {
            throw new TypeError(`OnboardingClient's baseUrl is not a URL: ${String(baseUrl)}`);
        }
        if (!Number.isInteger(maxRetries) || maxRetries < 0)
            throw new TypeError("maxRetries must be a whole number, 0 or more.");
        if (!(timeoutMs > 0))
            throw new TypeError("timeoutMs must be more than 0.");
        const fetch = options.fetch ?? globalThis.fetch;
        if (typeof fetch !== "function")
            throw new TypeError("No fetch: use Node.js 20 or later, or Bun, or pass options.fetch.");
        // Paths in this library start at /api/v1: a base given with it (or with a slash) means the same place.
        const base = `${url.origin}${url.pathname.replace(/\/+$/, "").replace(/\/api\/v1$/, "")}`;
        this.transport = new Transport({ apiKey, baseUrl: base, maxRetries, timeoutMs, fetch });
        this.customers = new Customers(this.transport);
        this.contacts = new Contacts(this.transport);
        this.onboardings = new Onboardings(this.transport);
        this.events = new Events(this.transport);
        this.webhookEndpoints = new WebhookEndpoints(this.transport);
        this.reports = new Reports(this.transport);
    }
    /** The calling key and its workspace. */
    me(options) {
        return this.transport.request({ method: "GET", path: "/api/v1/me" }, options);
    }
}
