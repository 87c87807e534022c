import { formatMicros } from "../../shared/clock.ts";
import type { Flow } from "../../shared/db/flow.ts";
import type { CustomerRow } from "../../shared/db/schema.ts";
import { DomainError, notFound } from "../../shared/errors.ts";
import { newId } from "../../shared/ids.ts";
import type { Actor } from "../auth/actor.ts";
import { slugTaken } from "./customers.errors.ts";
import { cursorMicros, PAGE_LIMIT_DEFAULT, toPage, type ListPage } from "../http/pagination.ts";
import type { CoreDeps } from "../deps.ts";
import type { CustomerLock, CustomerStore } from "./customers.store.ts";
import { applyFields, type FieldMap } from "../partial-update.ts";
import { findByRef } from "../refs.ts";
import { toContactResource } from "../contacts/contacts.resource.ts";
import { appendEvents, deleted, eventWriter, updated, type ChangeOrigin } from "../events/events.service.ts";
import type { WebhookEndpointStore } from "../../shared/db/webhook-endpoints.store.ts";
import type { EventStore } from "../../shared/db/events.store.ts";
import { toOnboardingResource } from "../onboardings/onboardings.resource.ts";
import {
  METADATA_MAX_BYTES,
  type CreateCustomerInput,
  type CustomerResource,
  type UpdateCustomerInput,
} from "./customers.schema.ts";

export type CustomerDeps = Pick<CoreDeps, "transaction" | "clock" | "nextSequence" | "outbox"> & { webhookEndpoints: WebhookEndpointStore; customers: CustomerStore; events: EventStore };
type Deps = CustomerDeps;

export function toCustomerResource(row: CustomerRow): CustomerResource {
  return {
    object: "customer",
    id: row.id,
    display_id: row.displayId,
    name: row.name,
    slug: row.slug,
    domain: row.domain,
    status: row.status,
    metadata: JSON.parse(row.metadata),
    created_at: formatMicros(row.createdAt),
    updated_at: formatMicros(row.updatedAt),
  };
}

/**
 * The customer `ref` names in the workspace, or not_found (on `field` when given). Inside a
 * transaction it is locked until the end: for a change of it (or of its contacts, whose one
 * primary it guards), or, with `lock: "share"`, only kept from changing or going while a new
 * record under it is written (other such creates go on beside).
 */
export function* findCustomer(store: CustomerStore, orgId: string, ref: string | number, field?: string, lock: CustomerLock = "update"): Flow<CustomerRow> {
  const row = yield* findByRef(ref, (id) => store.byId(orgId, id, lock), (n) => store.byDisplayId(orgId, n, lock));
  if (!row) {
    const error = notFound("customer", String(ref));
    throw field ? new DomainError(error.code, error.message, field) : error;
  }
  return row;
}

/** Request field → row column, for every field a PATCH may change (`metadata` serialised first). */
const FIELDS = { name: "name", slug: "slug", domain: "domain", status: "status", metadata: "metadata" } as const satisfies FieldMap<CustomerRow>;

function serialiseMetadata(metadata: Record<string, unknown>): string {
  const json = JSON.stringify(metadata);
  if (Buffer.byteLength(json) > METADATA_MAX_BYTES) {
    throw new DomainError("too_big", `'metadata' must serialise to at most ${METADATA_MAX_BYTES} bytes.`, "metadata");
  }
  return json;
}


/** `Ünïcode & Co.` → `unicode-co`; never empty. */
export function slugify(name: string): string {
  const base = name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .slice(0, 64)
    .replace(/^-+|-+$/g, "");
  return base === "" ? "customer" : base;
}

function* uniqueSlug(store: CustomerStore, orgId: string, name: string): Flow<string> {
  const base = slugify(name);
  let candidate = base;
  for (let n = 2; yield* store.slugInUse(orgId, candidate); n++) {
    const suffix = `-${n}`;
    candidate = `${base.slice(0, 64 - suffix.length).replace(/-+$/, "")}${suffix}`;
  }
  return candidate;
}

export function* createCustomer(deps: Deps, actor: Actor, input: CreateCustomerInput, origin: ChangeOrigin): Flow<CustomerResource> {
  const metadata = serialiseMetadata(input.metadata ?? {});
  return yield* deps.transaction(function* () {
    const { customers } = deps;
    const writeEvents = yield* eventWriter(deps, actor.orgId, origin);
    // The sequence row's lock next: creates of one workspace then choose their slugs one after
    // the other, so a generated slug never collides with a concurrent create's.
    const seq = yield* deps.nextSequence(actor.orgId, "customer", deps.clock.nowMicros());
    if (input.slug !== undefined && (yield* customers.slugInUse(actor.orgId, input.slug))) throw slugTaken(input.slug);
    const slug = input.slug ?? (yield* uniqueSlug(customers, actor.orgId, input.name));
    const row = {
      id: newId("cus"),
      orgId: actor.orgId,
      displayId: seq.displayId,
      name: input.name,
      slug,
      domain: input.domain ?? null,
      status: input.status ?? "onboarding",
      metadata,
      createdAt: seq.createdAt,
      updatedAt: seq.createdAt,
    };
    yield* customers.insert(row);
    const resource = toCustomerResource({ ...row, deletedAt: null });
    yield* writeEvents([{ type: "customer.created", object: resource }]);
    return resource;
  });
}

export function* listCustomers(
  deps: Pick<Deps, "customers">,
  actor: Actor,
  query: { limit?: number; cursor?: string; status?: string },
): Flow<ListPage<CustomerResource>> {
  const limit = query.limit ?? PAGE_LIMIT_DEFAULT;
  const rows = yield* deps.customers.page(actor.orgId, cursorMicros(query.cursor), limit + 1, query.status);
  return toPage(rows, limit, toCustomerResource);
}

export function* getCustomer(deps: Pick<Deps, "customers">, actor: Actor, ref: string): Flow<CustomerResource> {
  return toCustomerResource(yield* findCustomer(deps.customers, actor.orgId, ref));
}

export function* updateCustomer(deps: Deps, actor: Actor, ref: string, input: UpdateCustomerInput, origin: ChangeOrigin): Flow<CustomerResource> {
  const metadata = input.metadata === undefined ? undefined : serialiseMetadata(input.metadata);
  return yield* deps.transaction(function* () {
    const current = yield* findCustomer(deps.customers, actor.orgId, ref);
    const { next, changed } = applyFields(current, { ...input, metadata }, FIELDS);
    if (!changed) return toCustomerResource(current);
    if (next.slug !== current.slug && (yield* deps.customers.slugInUse(actor.orgId, next.slug))) throw slugTaken(next.slug);
    next.updatedAt = Math.max(deps.clock.nowMicros(), current.updatedAt + 1);
    yield* deps.customers.update(next);
    const resource = toCustomerResource(next);
    yield* appendEvents(deps, actor.orgId, origin, [updated("customer", toCustomerResource(current), resource)]);
    return resource;
  });
}

/** Deletes the customer with its contacts and onboardings: an event for each record, the customer's last. */
export function* deleteCustomer(deps: Pick<Deps, "transaction" | "clock" | "customers" | "events" | "webhookEndpoints" | "outbox">, actor: Actor, ref: string, origin: ChangeOrigin) {
  return yield* deps.transaction(function* () {
    const current = yield* findCustomer(deps.customers, actor.orgId, ref);
    const cascade = yield* deps.customers.softDeleteCascade(current.id, deps.clock.nowMicros());
    yield* appendEvents(deps, actor.orgId, origin, [
      ...cascade.contacts.map((row) => deleted("contact", toContactResource(row))),
      ...cascade.onboardings.map((row) => deleted("onboarding", toOnboardingResource(row))),
      deleted("customer", toCustomerResource(current)),
    ]);
    return { object: "customer" as const, id: current.id, deleted: true as const };
  });
}
