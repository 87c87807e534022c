import type { Clock } from "../../shared/clock.ts";
import { eventResourceOf } from "../../shared/event-resource.ts";
import type { Flow } from "../../shared/db/flow.ts";
import type { EventRow } from "../../shared/db/schema.ts";
import { DomainError } from "../../shared/errors.ts";
import { newId } from "../../shared/ids.ts";
import type { Actor } from "../auth/actor.ts";
import { pageOf } from "../http/pagination.ts";
import type { CoreDeps } from "../deps.ts";
import { queueDeliveries, webhookTargets, type WebhookTargets } from "../webhooks/webhooks.fanout.ts";
import type { WebhookEndpointStore } from "../../shared/db/webhook-endpoints.store.ts";
import type { EventStore } from "../../shared/db/events.store.ts";
import { EVENT_TYPES, type EventResource, type EventType, type ListEventsFilter } from "./events.schema.ts";

/** The API request behind a change, as events carry it. */
export interface RequestRef {
  id: string;
  idempotency_key: string | null;
}

/** Who made a change and through what: what every event of that change carries. */
export interface ChangeOrigin {
  actor: EventResource["actor"];
  livemode: boolean;
  request: RequestRef | null;
}

/** A change made with an API key, in one request (a route handler's input). */
export const apiOrigin = (input: { actor: Actor; requestId: string; idempotencyKey: string | null }): ChangeOrigin => ({
  actor: { type: "api_key", name: input.actor.keyName },
  livemode: input.actor.mode === "live",
  request: { id: input.requestId, idempotency_key: input.idempotencyKey },
});

/** One event of a change, before it has a position. */
export interface PendingEvent {
  type: EventType;
  object: { object: string; id: string } & Record<string, unknown>;
  previous_attributes?: Record<string, unknown>;
}

/** The fields of `before` whose values `after` changed (`updated_at` aside: it changes with every change). */
export function previousAttributes<T extends Record<string, unknown>>(before: T, after: T): Record<string, unknown> {
  const previous: Record<string, unknown> = {};
  for (const key of Object.keys(before)) {
    if (key !== "updated_at" && !sameValue(before[key], after[key])) previous[key] = before[key];
  }
  return previous;
}

/** Equal as JSON: scalars compared as they are (most fields, and a PATCH's hot path), objects by their JSON text. */
const sameValue = (a: unknown, b: unknown): boolean =>
  a === b || (typeof a === "object" && a !== null && typeof b === "object" && b !== null && JSON.stringify(a) === JSON.stringify(b));

/** The events of an update: `<kind>.updated` with what changed. */
export const updated = <T extends PendingEvent["object"]>(kind: "customer" | "contact" | "onboarding", before: T, after: T): PendingEvent => ({
  type: `${kind}.updated`,
  object: after,
  previous_attributes: previousAttributes(before, after),
});

export const deleted = (kind: "customer" | "contact" | "onboarding", last: PendingEvent["object"]): PendingEvent => ({
  type: `${kind}.deleted`,
  object: { ...last, deleted: true },
});

type EventDeps = { events: EventStore; clock: Clock; webhookEndpoints: WebhookEndpointStore; outbox: CoreDeps["outbox"] };

/** Writes a change's events: made by `eventWriter`. */
export type EventWriter = (pending: readonly PendingEvent[]) => Flow<void>;

/**
 * Reads what a change's events need (the workspace's webhook endpoints) and answers the
 * function that writes them. A change that takes a lock of its workspace (a display id's
 * sequence row) makes its writer first, so nothing it holds that lock for waits on a read.
 */
export function* eventWriter(deps: EventDeps, orgId: string, origin: ChangeOrigin): Flow<EventWriter> {
  const targets = yield* webhookTargets(deps, orgId, origin.livemode);
  return (pending) => writeEvents(deps, orgId, origin, targets, pending);
}

/**
 * Writes a change's events, in order, and queues their webhook deliveries. Call it as the
 * change's last write: it takes the workspace's feed positions, whose lock the transaction then
 * holds until it commits (see shared/db/events.store.ts). A change that wrote nothing calls it with no
 * events and writes nothing.
 */
export function* appendEvents(deps: EventDeps, orgId: string, origin: ChangeOrigin, pending: readonly PendingEvent[]): Flow<void> {
  if (pending.length === 0) return;
  yield* (yield* eventWriter(deps, orgId, origin))(pending);
}

/** The events and their deliveries, sent without waiting (`Statement.send`): the change's last writes. */
function* writeEvents(deps: EventDeps, orgId: string, origin: ChangeOrigin, targets: WebhookTargets, pending: readonly PendingEvent[]): Flow<void> {
  if (pending.length === 0) return;
  const now = deps.clock.nowMicros();
  const ids = pending.map(() => newId("evt"));
  // Before the positions: their lock is then held for the events' INSERT alone.
  yield* queueDeliveries(deps, orgId, targets, pending.map((event, i) => ({ id: ids[i]!, type: event.type })), now);
  yield* deps.events.append(orgId, eventRows(origin, pending, ids, now));
}

/**
 * A change's events as rows of the feed (their positions still to take), with the ids given.
 * `objectsJson` holds an event's object already serialised (a response body), by index: the
 * same text, not serialised again (the events of one change often carry one object).
 */
export function eventRows(
  origin: ChangeOrigin,
  pending: readonly PendingEvent[],
  ids: readonly string[],
  now: number,
  objectsJson: readonly (string | undefined)[] = [],
): Omit<EventRow, "orgId" | "position">[] {
  return pending.map((event, i) => ({
    id: ids[i]!,
    type: event.type,
    objectId: event.object.id,
    livemode: origin.livemode,
    actorType: origin.actor.type,
    actorName: origin.actor.name,
    requestId: origin.request?.id ?? null,
    idempotencyKey: origin.request?.idempotency_key ?? null,
    // The text JSON.stringify({ object, previous_attributes }) writes, with the object's text reused.
    data:
      event.previous_attributes === undefined
        ? `{"object":${objectsJson[i] ?? JSON.stringify(event.object)}}`
        : `{"object":${objectsJson[i] ?? JSON.stringify(event.object)},"previous_attributes":${JSON.stringify(event.previous_attributes)}}`,
    createdAt: now,
  }));
}

/** The event as the API returns it (shared with webhook deliveries: shared/event-resource.ts). */
export const toEventResource = (row: EventRow): EventResource => eventResourceOf(row) as EventResource;

/* ---- cursors ------------------------------------------------------------------------------ */

/**
 * A cursor names a position in the workspace's feed and the id of the event there (empty at
 * position 0, or when that event had been pruned when the cursor was made). The id lets a
 * restored database be told apart: positions after the backup are handed out again to other
 * events, and a cursor from before the restore would skip them.
 */
interface Cursor {
  position: number;
  eventId: string;
}

const encodeCursor = (cursor: Cursor): string => Buffer.from(`1:${cursor.position}:${cursor.eventId}`).toString("base64url");

function decodeCursor(text: string): Cursor {
  const match = /^1:(\d{1,15}):((?:evt_[0-9A-Z]{26})?)$/.exec(Buffer.from(text, "base64url").toString("utf8"));
  if (!match || (match[1] === "0" && match[2] !== "")) throw new DomainError("invalid_string", "'after' is not a cursor this feed handed out.", "after");
  return { position: Number(match[1]), eventId: match[2]! };
}

const cursorExpired = () =>
  new DomainError(
    "cursor_expired",
    "Events after this cursor are no longer retained (EVENTS_RETENTION). Take a new cursor from GET /api/v1/events/cursor and re-sync from the lists.",
    "after",
  );

/** `onboarding.*`, `*` and exact types → the types they name (null: every type); anything else is refused naming `field`. */
export function typesOf(filter: string | undefined, field = "type"): EventType[] | null {
  if (filter === undefined) return null;
  const out = new Set<EventType>();
  for (const raw of filter.split(",")) {
    const pattern = raw.trim();
    const family = pattern === "*" ? "" : pattern.endsWith(".*") ? pattern.slice(0, -1) : null;
    const matched = family === null ? EVENT_TYPES.filter((t) => t === pattern) : EVENT_TYPES.filter((t) => t.startsWith(family));
    if (matched.length === 0) {
      throw new DomainError("invalid_enum_value", `'${field}' must name event types (${EVENT_TYPES.join(", ")}) or families such as onboarding.*; got '${pattern}'.`, field);
    }
    for (const type of matched) out.add(type);
  }
  return out.size === EVENT_TYPES.length ? null : [...out];
}

export interface EventList {
  object: "list";
  data: EventResource[];
  has_more: boolean;
  next_cursor: string;
}

type ReadDeps = { events: EventStore };

/**
 * A page of the feed, oldest first. A cursor whose following events were pruned (or that
 * names another event than the one at its position: a restore) answers 410 `cursor_expired`.
 * The check runs after the page is read: pruning removes the oldest events only, so if the
 * oldest retained event still follows the cursor then, the page began right after it.
 */
export function* listEvents(deps: ReadDeps, actor: Actor, query: ListEventsFilter): Flow<EventList> {
  const limit = query.limit ?? 20;
  const types = typesOf(query.type);
  const cursor = query.after === undefined ? null : decodeCursor(query.after);
  const after = cursor?.position ?? 0;
  const rows = yield* deps.events.page(actor.orgId, after, { types, objectId: query.object_id ?? null }, limit + 1);
  if (cursor) yield* checkCursor(deps, actor.orgId, cursor);
  const { kept, has_more, last } = pageOf(rows, limit);
  return {
    object: "list",
    data: kept.map(toEventResource),
    has_more,
    next_cursor: last ? encodeCursor({ position: last.position, eventId: last.id }) : encodeCursor(cursor ?? (yield* startOfFeed(deps, actor.orgId))),
  };
}

/** Where a follower without a cursor stands when the feed holds nothing yet for it: just before the oldest retained event, or at the head. */
function* startOfFeed(deps: ReadDeps, orgId: string): Flow<Cursor> {
  const oldest = yield* deps.events.oldest(orgId);
  if (oldest === null) return yield* headCursor(deps, orgId);
  // Before the oldest event there is no event id to name: a position 0 cursor starts at the oldest retained.
  return { position: 0, eventId: "" };
}

function* headCursor(deps: ReadDeps, orgId: string): Flow<Cursor> {
  const position = yield* deps.events.head(orgId);
  if (position === 0) return { position: 0, eventId: "" };
  const eventId = yield* deps.events.idAt(orgId, position);
  // The newest event pruned (a feed idle past EVENTS_RETENTION): the cursor names the head by
  // position alone.
  return { position, eventId: eventId ?? "" };
}

function* checkCursor(deps: ReadDeps, orgId: string, cursor: Cursor): Flow<void> {
  if (cursor.position === 0) return;
  const there = yield* deps.events.idAt(orgId, cursor.position);
  if (there !== undefined) {
    if (cursor.eventId !== "" && there !== cursor.eventId) throw cursorExpired();
    return;
  }
  // The event at the cursor is gone: expired unless nothing after it was pruned either.
  const oldest = yield* deps.events.oldest(orgId);
  const head = yield* deps.events.head(orgId);
  if (cursor.position > head) throw cursorExpired(); // a position never handed out here: a restore
  if (oldest === null ? head > cursor.position : oldest > cursor.position + 1) throw cursorExpired();
}

/** `GET /api/v1/events/cursor`: the position after the newest event now. */
export function* currentCursor(deps: ReadDeps, actor: Actor): Flow<{ object: "event_cursor"; cursor: string }> {
  return { object: "event_cursor", cursor: encodeCursor(yield* headCursor(deps, actor.orgId)) };
}

export function* getEvent(deps: ReadDeps, actor: Actor, id: string): Flow<EventResource> {
  const row = yield* deps.events.byId(actor.orgId, id);
  if (!row) throw new DomainError("event_not_found", `No such event: '${id}'.`);
  return toEventResource(row);
}
