/**
 * Friendly names for the generated OpenAPI types (`openapi.ts`, never edited by hand), plus the
 * few shapes the document cannot state: an event whose `data.object` follows its `type`, and
 * the `ping` a webhook endpoint receives.
 */
import type { components, operations } from "./openapi.js";

type Schemas = components["schemas"];
/** The query of an operation, as the document states it. */
type QueryOf<Operation extends keyof operations> = NonNullable<operations[Operation]["parameters"]["query"]>;

/** A `{…_ref}`: the record's `id` (`cus_…`), or its `display_id` as a number or a string of digits. */
export type Ref = string | number;

export type ErrorBody = Schemas["Error"];
export type ErrorType = ErrorBody["error"]["type"];
export type ErrorCode = ErrorBody["error"]["code"];

export type Me = Schemas["Me"];

export type Customer = Schemas["Customer"];
export type CustomerList = Schemas["CustomerList"];
export type CustomerCreateParams = Schemas["CreateCustomer"];
export type CustomerUpdateParams = Schemas["UpdateCustomer"];
export type DeletedCustomer = Schemas["DeletedCustomer"];
export type CustomerListParams = QueryOf<"listCustomers">;

export type Contact = Schemas["Contact"];
export type ContactList = Schemas["ContactList"];
export type ContactCreateParams = Schemas["CreateContact"];
export type ContactUpdateParams = Schemas["UpdateContact"];
export type DeletedContact = Schemas["DeletedContact"];
export type ContactListParams = QueryOf<"listContacts">;

export type Onboarding = Schemas["Onboarding"];
export type OnboardingList = Schemas["OnboardingList"];
export type OnboardingCreateParams = Schemas["CreateOnboarding"];
export type OnboardingUpdateParams = Schemas["UpdateOnboarding"];
export type DeletedOnboarding = Schemas["DeletedOnboarding"];
export type OnboardingListParams = QueryOf<"listOnboardings">;
export type Phase = Onboarding["phase"];
export type State = Onboarding["state"];
export type PhaseDurations = Schemas["PhaseDurations"];
export type PhaseDurationReport = Schemas["PhaseDurationReport"];
/** `customer_id` takes the customer's `id` or `display_id`. */
export type PhaseDurationReportParams = Omit<QueryOf<"getPhaseDurationReport">, "customer_id"> & { customer_id?: Ref };

export type EventList = Schemas["EventList"];
export type EventCursor = Schemas["EventCursor"];
export type EventType = Schemas["Event"]["type"];
/** `type` may be one type or family (`onboarding.*`) or several; the client joins a list with commas. */
export type EventListParams = Omit<QueryOf<"listEvents">, "type"> & { type?: string | readonly string[] };

export type WebhookEndpoint = Schemas["WebhookEndpoint"];
export type WebhookEndpointWithSecret = Schemas["WebhookEndpointWithSecret"];
export type WebhookEndpointList = Schemas["WebhookEndpointList"];
export type WebhookEndpointCreateParams = Schemas["CreateWebhookEndpoint"];
export type WebhookEndpointUpdateParams = Schemas["UpdateWebhookEndpoint"];
export type DeletedWebhookEndpoint = Schemas["DeletedWebhook_endpoint"];
export type WebhookEndpointListParams = QueryOf<"listWebhookEndpoints">;
export type WebhookPing = Schemas["WebhookPing"];
export type WebhookAttempt = Schemas["WebhookAttempt"];
export type WebhookAttemptList = Schemas["WebhookAttemptList"];
export type WebhookAttemptListParams = QueryOf<"listWebhookAttempts">;
export type WebhookRecoverParams = Schemas["RecoverWebhookEvents"];
export type WebhookRecovery = Schemas["WebhookRecovery"];

type RawEvent = Schemas["Event"];
type ResourceOf<T extends EventType> = T extends `customer.${string}` ? Customer : T extends `contact.${string}` ? Contact : Onboarding;

/**
 * An event of the change feed, narrowed by its `type`: `data.object` is the customer, contact
 * or onboarding as the API returns it after the change (its last state with `deleted: true`
 * for a `*.deleted`), `data.previous_attributes` the changed fields' old values.
 *
 * ```ts
 * if (event.type === "onboarding.phase_changed") event.data.object.phase; // typed as a Phase
 * ```
 */
export type Event<T extends EventType = EventType> = T extends EventType
  ? Omit<RawEvent, "type" | "data"> & {
      type: T;
      data: {
        object: T extends `${string}.deleted` ? ResourceOf<T> & { deleted: true } : ResourceOf<T>;
        previous_attributes?: Partial<ResourceOf<T>>;
      };
    }
  : never;

/** What `POST /api/v1/webhook_endpoints/{id}/ping` sends: signed like any delivery, not in the feed. */
export interface PingEvent {
  object: "event";
  id: string;
  type: "ping";
  created_at: string;
  livemode: true;
  actor: { type: "system"; name: string };
  request: null;
  data: { object: { object: "webhook_endpoint"; id: string; url: string } };
}

/** The body of a webhook delivery: an event of the feed, or a ping. */
export type WebhookEvent = Event | PingEvent;
