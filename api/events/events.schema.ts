import { Type, type Static } from "@sinclair/typebox";
import { DateTime, Nullable, StringEnum } from "../http/schema-kit.ts";

/** Every event type, in the order the documentation lists them. */
export const EVENT_TYPES = [
  "customer.created",
  "customer.updated",
  "customer.deleted",
  "contact.created",
  "contact.updated",
  "contact.deleted",
  "onboarding.created",
  "onboarding.updated",
  "onboarding.phase_changed",
  "onboarding.state_changed",
  "onboarding.deleted",
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export const EVENT_ACTOR_TYPES = ["api_key", "user", "operator", "system"] as const;

export const Event = Type.Object(
  {
    object: Type.Literal("event"),
    id: Type.String({ examples: ["evt_01JDQ41N5P6Q7R8S9T0V1W2X3Y"] }),
    type: StringEnum(EVENT_TYPES),
    created_at: DateTime({ description: "When the change committed its event (the change's own transaction)." }),
    livemode: Type.Boolean({ description: "False when a test key made the change (test keys change data; their changes are in the feed)." }),
    actor: Type.Object({
      type: StringEnum(EVENT_ACTOR_TYPES, { description: "Who made the change: an API key, an admin-area user, the operator command line, or the service itself." }),
      name: Type.String({ description: "The key's name, the user's e-mail, `operator` or `system`." }),
    }),
    request: Nullable(
      Type.Object({
        id: Type.String({ description: "The `Request-Id` of the request that made the change." }),
        idempotency_key: Nullable(Type.String()),
      }),
      { description: "The API request behind the change; null for changes made elsewhere." },
    ),
    data: Type.Object({
      object: Type.Object(
        { object: Type.String(), id: Type.String() },
        {
          additionalProperties: true,
          description: "The customer, contact or onboarding as the API returns it after the change; for a deletion its last state with `deleted: true`.",
        },
      ),
      previous_attributes: Type.Optional(
        Type.Record(Type.String(), Type.Unknown(), {
          description: "On `*.updated`, `onboarding.phase_changed` and `onboarding.state_changed`: the changed fields' values before the change.",
        }),
      ),
    }),
  },
  { $id: "Event" },
);
export type EventResource = Static<typeof Event>;

export const EventList = Type.Object(
  {
    object: Type.Literal("list"),
    data: Type.Array(Event),
    has_more: Type.Boolean({ description: "True when more events follow this page now; follow `next_cursor` either way." }),
    next_cursor: Type.String({ description: "Where to resume: pass as `after`. Never null, also when the page is empty." }),
  },
  { $id: "EventList" },
);

export const EventCursor = Type.Object(
  {
    object: Type.Literal("event_cursor"),
    cursor: Type.String({ description: "The position after the newest event now: pass as `after` to read every change from here on." }),
  },
  { $id: "EventCursor" },
);

export const ListEventsQuery = Type.Object(
  {
    after: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: "A `next_cursor` (or an event cursor): events after it. Without it the feed starts at the oldest retained event." })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20, description: "Page size, 1 to 100." })),
    type: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 500,
        description: "Only these types: comma-separated or repeated; `*` as the last segment matches a family (`onboarding.*`), `*` alone everything.",
        "x-repeatable": true,
      }),
    ),
    object_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: "Only events of this customer, contact or onboarding (its `id`)." })),
  },
  { additionalProperties: false },
);
export type ListEventsFilter = Static<typeof ListEventsQuery>;

export const EventIdParams = Type.Object(
  { event_id: Type.String({ minLength: 1, maxLength: 64, description: "The event's `id` (`evt_…`).", examples: ["evt_01JDQ41N5P6Q7R8S9T0V1W2X3Y"] }) },
  { additionalProperties: false },
);
