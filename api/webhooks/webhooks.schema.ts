import { Type, type Static } from "@sinclair/typebox";
import { ListOf, pageQuery } from "../http/pagination.ts";
import { DateTime, Deleted, Nullable, StrictObject } from "../http/schema-kit.ts";

/** The most endpoints one workspace may have (the contract). */
export const MAX_ENDPOINTS = 16;

const endpointId = Type.String({ pattern: "^we_[0-9A-Z]{26}$", examples: ["we_01JDQ4C0D1E2F3G4H5J6K7M8N9"] });
const url = Type.String({ minLength: 1, maxLength: 2048, examples: ["https://hooks.example.com/onboarding"] });
const enabledEvents = Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
  minItems: 1,
  maxItems: 32,
  uniqueItems: true,
  description: "Event types (`onboarding.phase_changed`), families (`onboarding.*`) or `*` for every type.",
  examples: [["onboarding.*", "customer.deleted"]],
});
const description = Nullable(Type.String({ maxLength: 500, examples: ["CRM sync"] }));

export const WebhookEndpoint = Type.Object(
  {
    object: Type.Literal("webhook_endpoint"),
    id: endpointId,
    url: Type.String(),
    enabled_events: Type.Array(Type.String()),
    description: Nullable(Type.String()),
    status: Type.Union([Type.Literal("enabled"), Type.Literal("disabled")]),
    disabled_reason: Nullable(Type.String({ description: "Why the service disabled it (a 410, five days of failures); null when enabled, or disabled by hand." })),
    created_at: DateTime(),
    updated_at: DateTime(),
  },
  { $id: "WebhookEndpoint" },
);
export type WebhookEndpointResource = Static<typeof WebhookEndpoint>;

export const WebhookEndpointWithSecret = Type.Object(
  {
    ...WebhookEndpoint.properties,
    secret: Type.String({ description: "Signs deliveries (Standard Webhooks). Shown only in this response: store it now.", examples: ["whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"] }),
  },
  { $id: "WebhookEndpointWithSecret" },
);

export const WebhookEndpointList = ListOf(WebhookEndpoint, "WebhookEndpointList");
export const DeletedWebhookEndpoint = Deleted("webhook_endpoint", "we_01JDQ4C0D1E2F3G4H5J6K7M8N9");

export const CreateWebhookEndpointBody = StrictObject(
  { url, enabled_events: enabledEvents, description: Type.Optional(description) },
  { $id: "CreateWebhookEndpoint" },
);
export type CreateWebhookEndpointInput = Static<typeof CreateWebhookEndpointBody>;

export const UpdateWebhookEndpointBody = StrictObject(
  {
    url: Type.Optional(url),
    enabled_events: Type.Optional(enabledEvents),
    description: Type.Optional(description),
    status: Type.Optional(Type.Union([Type.Literal("enabled"), Type.Literal("disabled")], { description: "Enabling clears `disabled_reason`." })),
  },
  { $id: "UpdateWebhookEndpoint", description: "Omitted fields keep their values." },
);
export type UpdateWebhookEndpointInput = Static<typeof UpdateWebhookEndpointBody>;

export const EndpointIdParams = StrictObject({ endpoint_id: endpointId });
export const ListWebhookEndpointsQuery = StrictObject({ ...pageQuery });

export const WebhookAttempt = Type.Object(
  {
    object: Type.Literal("webhook_attempt"),
    id: Type.String({ examples: ["wha_01JDQ4C0D1E2F3G4H5J6K7M8N9"] }),
    endpoint_id: Type.String(),
    event_id: Type.String({ description: "Also the delivery's `webhook-id` header." }),
    attempt: Type.Integer({ minimum: 1, description: "1 for the first try of this event to this endpoint." }),
    status_code: Nullable(Type.Integer({ description: "The answer's status; null when none came (refused address, timeout, connection error)." })),
    duration_ms: Type.Number(),
    error: Nullable(Type.String()),
    response_excerpt: Nullable(Type.String({ description: "At most 1 KiB of the answer's body." })),
    created_at: DateTime(),
    next_attempt_at: Nullable(DateTime({ description: "When the next try is due; null when this was the last." })),
  },
  { $id: "WebhookAttempt" },
);
export type WebhookAttemptResource = Static<typeof WebhookAttempt>;
export const WebhookAttemptList = ListOf(WebhookAttempt, "WebhookAttemptList");
export const ListWebhookAttemptsQuery = StrictObject({ ...pageQuery });

export const RecoverBody = StrictObject(
  { since: DateTime({ description: "Queue again every event from this instant on that this endpoint has not received." }) },
  { $id: "RecoverWebhookEvents" },
);
export const WebhookRecovery = Type.Object(
  {
    object: Type.Literal("webhook_recovery"),
    endpoint_id: Type.String(),
    queued: Type.Integer({ minimum: 0, description: "Events queued for delivery by this call." }),
    has_more: Type.Boolean({ description: "True when more remain than one call queues: call again with `since` = `next_since`." }),
    next_since: Nullable(DateTime()),
  },
  { $id: "WebhookRecovery" },
);
export const WebhookPing = Type.Object(
  { object: Type.Literal("webhook_ping"), endpoint_id: Type.String(), event_id: Type.String({ description: "The ping's `webhook-id`; its attempt appears in the attempts log." }) },
  { $id: "WebhookPing" },
);
