import { Contacts } from "./resources/contacts.js";
import { Customers } from "./resources/customers.js";
import { Events } from "./resources/events.js";
import { Onboardings } from "./resources/onboardings.js";
import { Reports } from "./resources/reports.js";
import { WebhookEndpoints } from "./resources/webhook-endpoints.js";
import { Transport, type RequestOptions } from "./transport.js";
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
export class OnboardingClient {
  readonly customers: Customers;
  readonly contacts: Contacts;
  readonly onboardings: Onboardings;
  readonly events: Events;
  readonly webhookEndpoints: WebhookEndpoints;
  readonly reports: Reports;
  private readonly transport: Transport;

  constructor(options: ClientOptions) {
    const { apiKey, baseUrl, maxRetries = 2, timeoutMs = 30_000 } = options;
    if (typeof apiKey !== "string" || apiKey === "") throw new TypeError("OnboardingClient needs an apiKey (svc_… or svc_test_…).");
    let url: URL;
    try {
      url = new URL(baseUrl);
    } catch {
      throw new TypeError(`OnboardingClient's baseUrl is not a URL: ${String(baseUrl)}`);
    }
    if (!Number.isInteger(maxRetries) || maxRetries < 0) throw new TypeError("maxRetries must be a whole number, 0 or more.");
    if (!(timeoutMs > 0)) throw new TypeError("timeoutMs must be more than 0.");
    const fetch = options.fetch ?? globalThis.fetch;
    if (typeof fetch !== "function") throw new TypeError("No fetch: use Node.js 20 or later, or Bun, or pass options.fetch.");
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
  me(options?: RequestOptions): Promise<Me> {
    return this.transport.request({ method: "GET", path: "/api/v1/me" }, options);
  }
}
