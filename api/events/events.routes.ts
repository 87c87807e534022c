import { defineRoute, type RouteDef } from "../http/route.ts";
import { exampleEvent } from "../examples.ts";
import { Event, EventCursor, EventIdParams, EventList, ListEventsQuery } from "./events.schema.ts";
import { currentCursor, getEvent, listEvents } from "./events.service.ts";
import type { EventStore } from "../../shared/db/events.store.ts";

const tag = "Events";

export const eventRoutes = (deps: { events: EventStore }): RouteDef[] => [
  defineRoute({
    method: "GET",
    path: "/api/v1/events",
    operationId: "listEvents",
    summary: "List events (the change feed)",
    description:
      "Every change of a customer, contact or onboarding, **oldest first**, each once, in commit order. Pass each page's `next_cursor` back as `after` to follow the feed; it is never null. Filters (`type`, `object_id`) narrow a page without skipping anything. A cursor whose following events are older than `EVENTS_RETENTION` answers 410 `cursor_expired`: re-sync from the lists.",
    tag,
    query: ListEventsQuery,
    success: {
      status: 200,
      description: "A page of events, oldest first.",
      schema: EventList,
      example: { object: "list", data: [exampleEvent], has_more: false, next_cursor: "MTo0MjpldnRfMDFKRFE0MU41UDZRN1I4UzlUMFYxVzJYM1k" },
    },
    errors: ["invalid_string", "invalid_enum_value", "cursor_expired"],
    handler: ({ actor, query }) => listEvents(deps, actor, query),
  }),
  defineRoute({
    method: "GET",
    path: "/api/v1/events/cursor",
    operationId: "getEventCursor",
    summary: "Take the feed's current position",
    description:
      "The position after the newest event now. To sync: take this cursor, walk the lists, then follow `GET /api/v1/events?after=<cursor>`; every change made after the cursor was taken is in the feed.",
    tag,
    success: { status: 200, description: "The current position.", schema: EventCursor, example: { object: "event_cursor", cursor: "MTo0MjpldnRfMDFKRFE0MU41UDZRN1I4UzlUMFYxVzJYM1k" } },
    errors: [],
    handler: ({ actor }) => currentCursor(deps, actor),
  }),
  defineRoute({
    method: "GET",
    path: "/api/v1/events/:event_id",
    operationId: "getEvent",
    summary: "Retrieve an event",
    description: "One event of your workspace's feed, while it is retained (`EVENTS_RETENTION`).",
    tag,
    params: EventIdParams,
    success: { status: 200, description: "The event.", schema: Event, example: exampleEvent },
    errors: ["event_not_found"],
    handler: ({ actor, params }) => getEvent(deps, actor, params.event_id),
  }),
];
