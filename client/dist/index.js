/**
 * onboarding-client: the typed client of the Customer Onboarding Service API.
 * README.md beside this package describes every part.
 */
export { OnboardingClient } from "./client.js";
export { OnboardingApiError, OnboardingConnectionError, OnboardingError, WebhookVerificationError } from "./errors.js";
export { Paginated } from "./pagination.js";
export { EventFeed } from "./resources/events.js";
export { verifyWebhook } from "./webhooks.js";
export { VERSION } from "./version.js";
