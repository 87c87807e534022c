/**
 * onboarding-client: the typed client of the Customer Onboarding Service API.
 * README.md beside this package describes every part.
 */
export { OnboardingClient, type ClientOptions } from "./client.js";
export { OnboardingApiError, OnboardingConnectionError, OnboardingError, WebhookVerificationError } from "./errors.js";
export { Paginated, type Page } from "./pagination.js";
export { EventFeed, type FollowOptions } from "./resources/events.js";
export type { Contacts } from "./resources/contacts.js";
export type { Customers } from "./resources/customers.js";
export type { Events } from "./resources/events.js";
export type { Onboardings } from "./resources/onboardings.js";
export type { Reports } from "./resources/reports.js";
export type { WebhookEndpoints } from "./resources/webhook-endpoints.js";
export type { RequestOptions } from "./transport.js";
export { verifyWebhook, type VerifyWebhookOptions, type WebhookHeaders } from "./webhooks.js";
export { VERSION } from "./version.js";
export type * from "./types.js";
/** The generated OpenAPI types, for anything the names above do not cover. */
export type { components, operations, paths } from "./openapi.js";
