import type { Flow } from "../../shared/db/flow.ts";
import type { ContactRow } from "../../shared/db/schema.ts";
import { notFound } from "../../shared/errors.ts";
import { newId } from "../../shared/ids.ts";
import type { Actor } from "../auth/actor.ts";
import { cursorMicros, PAGE_LIMIT_DEFAULT, toPage, type ListPage } from "../http/pagination.ts";
import { findCustomer } from "../customers/customers.service.ts";
import type { CoreDeps } from "../deps.ts";
import type { CustomerStore } from "../customers/customers.store.ts";
import type { ContactStore } from "./contacts.store.ts";
import { applyFields, type FieldMap } from "../partial-update.ts";
import { findByRef } from "../refs.ts";
import { toContactResource } from "./contacts.resource.ts";
import { appendEvents, deleted, updated, type ChangeOrigin, type PendingEvent } from "../events/events.service.ts";
import type { WebhookEndpointStore } from "../../shared/db/webhook-endpoints.store.ts";
import type { EventStore } from "../../shared/db/events.store.ts";
import type { ContactResource, CreateContactInput, UpdateContactInput } from "./contacts.schema.ts";

export type ContactDeps = Pick<CoreDeps, "transaction" | "clock" | "nextSequence" | "outbox"> & { webhookEndpoints: WebhookEndpointStore; customers: CustomerStore; contacts: ContactStore; events: EventStore };
type Deps = ContactDeps;

/** Request field → row column, for every field a PATCH may change. */
const FIELDS = { name: "name", email: "email", title: "title", is_primary: "isPrimary" } as const satisfies FieldMap<ContactRow>;


/** A contact that stopped being primary because another became so: its own contact.updated. */
const demotedEvent = (row: ContactRow): PendingEvent => {
  const after = toContactResource(row);
  return { type: "contact.updated", object: after, previous_attributes: { is_primary: true } };
};

function* findContact(deps: Pick<Deps, "customers" | "contacts">, actor: Actor, customerRef: string, contactRef: string): Flow<ContactRow> {
  const customer = yield* findCustomer(deps.customers, actor.orgId, customerRef);
  const row = yield* findByRef(
    contactRef,
    (id) => deps.contacts.byId(actor.orgId, customer.id, id),
    (n) => deps.contacts.byDisplayId(actor.orgId, customer.id, n),
  );
  if (!row) throw notFound("contact", contactRef);
  return row;
}

export function* createContact(deps: Deps, actor: Actor, customerRef: string, input: CreateContactInput, origin: ChangeOrigin): Flow<ContactResource> {
  return yield* deps.transaction(function* () {
    const customer = yield* findCustomer(deps.customers, actor.orgId, customerRef);
    const now = deps.clock.nowMicros();
    const seq = yield* deps.nextSequence(actor.orgId, "contact", now);
    const isPrimary = input.is_primary ?? false;
    const demoted = isPrimary ? yield* deps.contacts.clearPrimary(customer.id, seq.createdAt) : [];
    const row = {
      id: newId("con"),
      orgId: actor.orgId,
      customerId: customer.id,
      displayId: seq.displayId,
      name: input.name,
      email: input.email ?? null,
      title: input.title ?? null,
      isPrimary,
      createdAt: seq.createdAt,
      updatedAt: seq.createdAt,
    };
    yield* deps.contacts.insert(row);
    const resource = toContactResource({ ...row, deletedAt: null });
    yield* appendEvents(deps, actor.orgId, origin, [...demoted.map(demotedEvent), { type: "contact.created", object: resource }]);
    return resource;
  });
}

export function* listContacts(
  deps: Pick<Deps, "customers" | "contacts">,
  actor: Actor,
  customerRef: string,
  query: { limit?: number; cursor?: string },
): Flow<ListPage<ContactResource>> {
  const customer = yield* findCustomer(deps.customers, actor.orgId, customerRef);
  const limit = query.limit ?? PAGE_LIMIT_DEFAULT;
  const rows = yield* deps.contacts.page(actor.orgId, customer.id, cursorMicros(query.cursor), limit + 1);
  return toPage(rows, limit, toContactResource);
}

export function* getContact(deps: Pick<Deps, "customers" | "contacts">, actor: Actor, customerRef: string, contactRef: string): Flow<ContactResource> {
  return toContactResource(yield* findContact(deps, actor, customerRef, contactRef));
}

export function* updateContact(
  deps: Deps,
  actor: Actor,
  customerRef: string,
  contactRef: string,
  input: UpdateContactInput,
  origin: ChangeOrigin,
): Flow<ContactResource> {
  return yield* deps.transaction(function* () {
    const current = yield* findContact(deps, actor, customerRef, contactRef);
    const { next, changed } = applyFields(current, input, FIELDS);
    if (!changed) return toContactResource(current);
    next.updatedAt = Math.max(deps.clock.nowMicros(), current.updatedAt + 1);
    const demoted = next.isPrimary && !current.isPrimary ? yield* deps.contacts.clearPrimary(current.customerId, next.updatedAt) : [];
    yield* deps.contacts.update(next);
    const resource = toContactResource(next);
    yield* appendEvents(deps, actor.orgId, origin, [...demoted.map(demotedEvent), updated("contact", toContactResource(current), resource)]);
    return resource;
  });
}

export function* deleteContact(
  deps: Pick<Deps, "transaction" | "clock" | "customers" | "contacts" | "events" | "webhookEndpoints" | "outbox">,
  actor: Actor,
  customerRef: string,
  contactRef: string,
  origin: ChangeOrigin,
) {
  return yield* deps.transaction(function* () {
    const current = yield* findContact(deps, actor, customerRef, contactRef);
    yield* deps.contacts.softDelete(current.id, deps.clock.nowMicros());
    yield* appendEvents(deps, actor.orgId, origin, [deleted("contact", toContactResource(current))]);
    return { object: "contact" as const, id: current.id, deleted: true as const };
  });
}
