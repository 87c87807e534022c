import { parseDateTimeMicros } from "../../shared/clock.ts";
import { together, type Flow } from "../../shared/db/flow.ts";
import type { OnboardingRow } from "../../shared/db/schema.ts";
import { notFound } from "../../shared/errors.ts";
import { newId } from "../../shared/ids.ts";
import type { Actor } from "../auth/actor.ts";
import { cursorMicros, PAGE_LIMIT_DEFAULT, pageOf, pageText } from "../http/pagination.ts";
import type { RenderedResources, Rendering } from "../http/rendered.ts";
import { JsonText } from "../http/route.ts";
import { findCustomer } from "../customers/customers.service.ts";
import type { CoreDeps } from "../deps.ts";
import type { PhaseDurationStore } from "../../shared/db/phase-durations.store.ts";
import type { CustomerStore } from "../customers/customers.store.ts";
import type { OnboardingStore } from "./onboardings.store.ts";
import { applyFields, type FieldMap } from "../partial-update.ts";
import { displayIdOf, findByRef, isDisplayIdRef } from "../refs.ts";
import { toOnboardingResource } from "./onboardings.resource.ts";
import type {
  CreateOnboardingInput,
  ListOnboardingsFilter,
  OnboardingResource,
  UpdateOnboardingInput,
} from "./onboardings.schema.ts";
import { appendEvents, deleted, eventWriter, updated, type ChangeOrigin, type PendingEvent } from "../events/events.service.ts";
import type { WebhookEndpointStore } from "../../shared/db/webhook-endpoints.store.ts";
import type { EventStore } from "../../shared/db/events.store.ts";
import { queuePhaseChangeEffects } from "./phase-change-effects.ts";

export type OnboardingDeps = CoreDeps & {
  webhookEndpoints: WebhookEndpointStore;
  customers: CustomerStore;
  onboardings: OnboardingStore;
  events: EventStore;
  phaseDurations: PhaseDurationStore;
};
type Deps = OnboardingDeps;

/** Request field → row column, for every field a client may set. */
const FIELDS = {
  template_id: "templateId",
  phase: "phase",
  state: "state",
  target_launch_date: "targetLaunchDate",
  csm_id: "csmId",
  se_id: "seId",
  designer_id: "designerId",
  product_ops_id: "productOpsId",
  notes: "notes",
  reminder_email: "reminderEmail",
  reminder_slack: "reminderSlack",
  reminder_frequency_days: "reminderFrequencyDays",
  waiting_on_customer: "waitingOnCustomer",
  wizard_completed_at: "wizardCompletedAt",
} as const satisfies FieldMap<OnboardingRow>;


export function* findOnboarding(deps: Pick<Deps, "onboardings">, actor: Pick<Actor, "orgId">, ref: string): Flow<OnboardingRow> {
  return yield* onboardingByRef(ref, (id) => deps.onboardings.byId(actor.orgId, id), (n) => deps.onboardings.byDisplayId(actor.orgId, n));
}

/** What one of the two lookups finds for `ref` (an id, or digits for a display_id); 404 `onboarding_not_found` when it finds nothing. */
function* onboardingByRef<R>(ref: string, byId: (id: string) => Flow<R | undefined>, byDisplayId: (displayId: number) => Flow<R | undefined>): Flow<R> {
  const found = yield* findByRef(ref, byId, byDisplayId);
  if (found === undefined) throw notFound("onboarding", ref);
  return found;
}

/** The target as an instant, stored beside the text the client sent (which is returned as sent). */
const targetInstant = (date: string | null) => (date === null ? null : parseDateTimeMicros(date));

const isSuspended = (row: Pick<OnboardingRow, "state" | "waitingOnCustomer">) =>
  row.state === "waiting" && row.waitingOnCustomer;

/** A new onboarding's row: the defaults, the request's fields over them, and what derives from both. */
export function newOnboarding(actor: Actor, customerId: string, input: CreateOnboardingInput, displayId: number, now: number): OnboardingRow {
  const defaults: OnboardingRow = {
    id: newId("onb"),
    orgId: actor.orgId,
    customerId,
    displayId,
    templateId: null,
    phase: "before_getting_started",
    state: "active",
    startedAt: now,
    completedAt: null,
    targetLaunchDate: null,
    targetLaunchAt: null,
    csmId: null,
    seId: null,
    designerId: null,
    productOpsId: null,
    notes: null,
    waitingOnCustomer: false,
    waitingOnCustomerSince: null,
    wizardCompletedAt: null,
    reminderEmail: true,
    reminderSlack: true,
    reminderFrequencyDays: 1,
    createdAt: now,
    updatedAt: now,
    deletedAt: null,
    phaseEnteredAt: now,
    slaSuspendedMicros: 0,
    slaSuspendedSince: null,
    lastChangedMode: actor.mode,
  };
  const { customer_id: _customer, ...settable } = input;
  const row = applyFields(defaults, settable, FIELDS).next;
  row.targetLaunchAt = targetInstant(row.targetLaunchDate);
  if (row.phase === "completed") row.completedAt = now;
  return row;
}

export function* createOnboarding(deps: Deps, actor: Actor, input: CreateOnboardingInput, origin: ChangeOrigin): Flow<OnboardingResource> {
  return yield* deps.transaction(function* () {
    // Shared: creates under one customer do not queue on its row; its change or deletion waits for them.
    const customer = yield* findCustomer(deps.customers, actor.orgId, input.customer_id, "customer_id", "share");
    // What the events need is read before the sequence row's lock, which is then held for the writes alone.
    const writeEvents = yield* eventWriter(deps, actor.orgId, origin);
    const { displayId, createdAt: now } = yield* deps.nextSequence(actor.orgId, "onboarding", deps.clock.nowMicros());
    const row = newOnboarding(actor, customer.id, input, displayId, now);
    yield* deps.onboardings.insert(row);
    const resource = toOnboardingResource(row);
    yield* writeEvents([{ type: "onboarding.created", object: resource }]);
    return resource;
  });
}

/**
 * An onboarding's resource as JSON text: the text kept at the row's version, or rendered now
 * (and kept). `kept` says which.
 */
function textOf(rendered: RenderedResources, row: OnboardingRow): { text: string; kept: boolean } {
  const text = rendered.get(row.id, row.updatedAt);
  if (text !== undefined) return { text, kept: true };
  const made = JSON.stringify(toOnboardingResource(row));
  rendered.set(row.id, row.updatedAt, made);
  return { text: made, kept: false };
}

/**
 * A page of onboardings, as JSON text, from the texts this process rendered earlier where it
 * can (api/http/rendered.ts). While recent lists mostly found their pages rendered, the page's
 * ids and versions are read first, and when each is rendered at that version the page is those
 * texts. Otherwise the page is read whole, in one statement, and each row rendered (and kept):
 * the answer is then that statement's, as it always was, whatever changed between the reads.
 */
export function* listOnboardings(
  deps: Pick<Deps, "customers" | "onboardings"> & Rendering,
  actor: Actor,
  customerRef: string | null,
  query: ListOnboardingsFilter,
): Flow<JsonText> {
  const { rendered, kept } = deps;
  const customerId = customerRef === null ? null : (yield* findCustomer(deps.customers, actor.orgId, customerRef)).id;
  const limit = query.limit ?? PAGE_LIMIT_DEFAULT;
  const before = cursorMicros(query.cursor);
  if (kept.expected()) {
    const versions = pageOf(yield* deps.onboardings.pageVersions(actor.orgId, customerId, query, before, limit + 1), limit);
    const texts: string[] = [];
    for (const { id, updatedAt } of versions.kept) {
      const text = rendered.get(id, updatedAt);
      if (text === undefined) break;
      texts.push(text);
    }
    if (texts.length === versions.kept.length) {
      if (texts.length > 0) kept.note(true);
      return new JsonText(pageText(texts, versions));
    }
  }
  const page = pageOf(yield* deps.onboardings.page(actor.orgId, customerId, query, before, limit + 1), limit);
  let allKept = true;
  const texts = page.kept.map((row) => {
    const made = textOf(rendered, row);
    allKept &&= made.kept;
    return made.text;
  });
  if (texts.length > 0) kept.note(allKept); // an empty page says nothing either way
  return new JsonText(pageText(texts, page));
}

/**
 * One onboarding, by either reference, as JSON text, from the text this process rendered
 * earlier where it can (api/http/rendered.ts). On SQLite the workspace's onboarding revision
 * comes first (kept in memory until the next commit of any connection, so most GETs read no
 * statement for it): a text that a read found current at that same revision is the answer,
 * without a statement. Otherwise, while recent GETs mostly found theirs, its id and version are
 * read, and a text kept at that version is the answer. Otherwise the row is read whole and
 * rendered (and kept), as it always was. Both reads note the revision read before them, and a
 * GET by `display_id` which onboarding it named then, so that the next GET by it is answered the
 * same way.
 */
export function* getOnboarding(deps: Pick<Deps, "onboardings"> & Rendering, actor: Actor, ref: string): Flow<JsonText> {
  const { rendered, kept } = deps;
  const revision = deps.onboardings.revision === null ? null : yield* deps.onboardings.revision(actor.orgId);
  // A display_id by its number, as the lookup reads it ("007" is 7); undefined for one no onboarding can have.
  const displayId = isDisplayIdRef(ref) ? displayIdOf(ref) : null;
  if (revision !== null) {
    const id = displayId === null ? ref : displayId === undefined ? undefined : rendered.named(actor.orgId, String(displayId), revision);
    const text = id === undefined ? undefined : rendered.current(id, actor.orgId, revision);
    if (text !== undefined) {
      kept.note(true);
      return new JsonText(text);
    }
  }
  const confirm = (id: string, version: number) => {
    if (revision === null) return;
    rendered.confirm(id, version, actor.orgId, revision);
    if (displayId !== null && displayId !== undefined) rendered.name(actor.orgId, String(displayId), id, revision);
  };
  if (kept.expected()) {
    const version = yield* onboardingByRef(
      ref,
      (id) => deps.onboardings.versionById(actor.orgId, id),
      (n) => deps.onboardings.versionByDisplayId(actor.orgId, n),
    );
    const text = rendered.get(version.id, version.updatedAt);
    if (text !== undefined) {
      confirm(version.id, version.updatedAt);
      kept.note(true);
      return new JsonText(text);
    }
  }
  const row = yield* findOnboarding(deps, actor, ref);
  const made = textOf(rendered, row);
  confirm(row.id, row.updatedAt);
  kept.note(made.kept);
  return new JsonText(made.text);
}

/** What a PATCH makes of an onboarding: the next row and, for a phase change, what its records need. */
export interface UpdatePlan {
  next: OnboardingRow;
  /** The change's instant (µs): at least 1 µs after the onboarding's last. */
  at: number;
  /** For a phase change: the SLA-suspended time of the visit it ends (µs); null when the phase stays. */
  phaseChange: { suspendedInPhase: number } | null;
}

/**
 * A partial update applied to `current` at `clockNow`, with the derived fields kept:
 * `completed_at`, `waiting_on_customer_since` and the SLA clock. Null when the body changes
 * nothing. Pure: the one place a PATCH's outcome is decided, alone or made together
 * (api/onboardings/onboarding-updates.together.ts).
 */
export function planUpdate(current: OnboardingRow, input: UpdateOnboardingInput, actor: Actor, clockNow: number): UpdatePlan | null {
  const { next, changed } = applyFields(current, input, FIELDS);
  if (!changed) return null;

  const at = Math.max(clockNow, current.updatedAt + 1);
  next.updatedAt = at;
  next.lastChangedMode = actor.mode;
  next.targetLaunchAt = targetInstant(next.targetLaunchDate);
  if (next.waitingOnCustomer !== current.waitingOnCustomer) {
    next.waitingOnCustomerSince = next.waitingOnCustomer ? at : null;
  }

  const suspendedBefore = current.slaSuspendedSince !== null;
  const suspendedInPhase = current.slaSuspendedMicros + (suspendedBefore ? at - current.slaSuspendedSince! : 0);
  const suspendedAfter = isSuspended(next);

  if (next.phase !== current.phase) {
    next.completedAt = next.phase === "completed" ? at : null;
    next.phaseEnteredAt = at;
    next.slaSuspendedMicros = 0;
    next.slaSuspendedSince = suspendedAfter ? at : null;
    return { next, at, phaseChange: { suspendedInPhase } };
  }
  if (suspendedBefore !== suspendedAfter) {
    next.slaSuspendedMicros = suspendedInPhase;
    next.slaSuspendedSince = suspendedAfter ? at : null;
  }
  return { next, at, phaseChange: null };
}

/** An update's events, in order: `onboarding.updated`, then a phase or state change of it. */
export function updateEvents(current: OnboardingRow, next: OnboardingRow): { resource: OnboardingResource; events: PendingEvent[] } {
  const before = toOnboardingResource(current);
  const resource = toOnboardingResource(next);
  const events: PendingEvent[] = [updated("onboarding", before, resource)];
  if (next.phase !== current.phase) events.push({ type: "onboarding.phase_changed", object: resource, previous_attributes: { phase: before.phase } });
  if (next.state !== current.state) events.push({ type: "onboarding.state_changed", object: resource, previous_attributes: { state: before.state } });
  return { resource, events };
}

/**
 * Applies a partial update (`planUpdate`). A phase change writes its records (and, for
 * `launch` by a live key, queues the launch automations) in the same transaction. A body that
 * changes nothing writes nothing.
 *
 * Its statements go in an order that keeps the rows every change of the workspace shares
 * locked for as little as possible: the reads first, in one round trip (the onboarding, locked,
 * and the endpoints its events may go to); then the onboarding's own writes; last, the
 * workspace's month aggregate and feed positions, whose locks are then held for the commit
 * alone.
 */
export function* updateOnboarding(deps: Deps, actor: Actor, ref: string, input: UpdateOnboardingInput, origin: ChangeOrigin): Flow<OnboardingResource> {
  return yield* deps.transaction(function* () {
    const [current, writeEvents] = yield* together(findOnboarding(deps, actor, ref), eventWriter(deps, actor.orgId, origin));
    const plan = planUpdate(current, input, actor, deps.clock.nowMicros());
    if (!plan) return toOnboardingResource(current);
    const { next, at, phaseChange } = plan;
    const addToMonths = phaseChange ? yield* queuePhaseChangeEffects(deps, actor, current, next, at, phaseChange.suspendedInPhase) : null;
    yield* deps.onboardings.update(current, next);
    const { resource, events } = updateEvents(current, next);
    if (addToMonths) yield* addToMonths();
    yield* writeEvents(events);
    return resource;
  });
}

export function* deleteOnboarding(deps: Pick<Deps, "transaction" | "clock" | "onboardings" | "events" | "webhookEndpoints" | "outbox">, actor: Actor, ref: string, origin: ChangeOrigin) {
  return yield* deps.transaction(function* () {
    const current = yield* findOnboarding(deps, actor, ref);
    yield* deps.onboardings.softDelete(current.id, deps.clock.nowMicros());
    yield* appendEvents(deps, actor.orgId, origin, [deleted("onboarding", toOnboardingResource(current))]);
    return { object: "onboarding" as const, id: current.id, deleted: true as const };
  });
}
