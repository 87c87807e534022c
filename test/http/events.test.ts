import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { lifetimesFrom, pruneExpired } from "../../shared/retention.ts";
import { createTestApp, expectError, expectSchema, ManualClock, type TestApp } from "../support/test-app.ts";
import { Event, EventList } from "../../api/events/events.schema.ts";

/** The change feed: what each change writes, and how a follower reads it. */
let t: TestApp;
const clock = new ManualClock(Date.UTC(2026, 10, 1) * 1000);
beforeAll(async () => {
  t = await createTestApp({ clock });
});
afterAll(() => t.close());

type Ev = { id: string; type: string; livemode: boolean; actor: unknown; request: { id: string; idempotency_key: string | null } | null; data: { object: any; previous_attributes?: any } };

/** Every event after `after`, following next_cursor; answers the events and the last cursor. */
async function follow(after: string | undefined, query = "", key?: string): Promise<{ events: Ev[]; cursor: string }> {
  const events: Ev[] = [];
  let cursor = after;
  for (;;) {
    const r = await t.call("GET", `/api/v1/events?limit=7${cursor ? `&after=${cursor}` : ""}${query}`, { key });
    expect(r.status).toBe(200);
    expectSchema(EventList, r.body);
    events.push(...r.body.data);
    cursor = r.body.next_cursor;
    if (!r.body.has_more) return { events, cursor: cursor! };
  }
}

const head = async () => (await t.call("GET", "/api/v1/events/cursor")).body.cursor as string;

describe("the change feed", () => {
  test("each change writes its events in order, with the resource, what changed, who and which request", async () => {
    const start = await head();
    const customer = await t.call("POST", "/api/v1/customers", { body: { name: "Feed Co" }, headers: { "idempotency-key": "feed-co-1" } });
    const onboarding = await t.call("POST", "/api/v1/onboardings", { body: { customer_id: customer.body.id } });
    const id = onboarding.body.id;
    await t.call("PATCH", `/api/v1/onboardings/${id}`, { body: { phase: "review" } });
    await t.call("PATCH", `/api/v1/onboardings/${id}`, { body: { phase: "internal_qa", state: "at_risk" } });
    await t.call("PATCH", `/api/v1/onboardings/${id}`, { body: { notes: "n" } });
    const unchanged = await t.call("PATCH", `/api/v1/onboardings/${id}`, { body: { notes: "n" } }); // changes nothing: no event
    expect(unchanged.status).toBe(200);

    const { events } = await follow(start);
    expect(events.map((e) => e.type)).toEqual([
      "customer.created",
      "onboarding.created",
      "onboarding.updated",
      "onboarding.phase_changed",
      "onboarding.updated",
      "onboarding.phase_changed",
      "onboarding.state_changed",
      "onboarding.updated",
    ]);
    for (const e of events) expectSchema(Event, e);
    expect(events[0]!.data.object).toEqual(customer.body);
    expect(events[0]!.request).toEqual({ id: customer.headers.get("request-id")!, idempotency_key: "feed-co-1" });
    expect(events[0]!.actor).toEqual({ type: "api_key", name: "crm-sync" });
    expect(events[0]!.livemode).toBe(true);
    expect(events[2]!.data.previous_attributes).toEqual({ phase: "before_getting_started" });
    expect(events[4]!.data.previous_attributes).toEqual({ phase: "review", state: "active" });
    expect(events[5]!.data.previous_attributes).toEqual({ phase: "review" });
    expect(events[6]!.data.previous_attributes).toEqual({ state: "active" });
    expect(events[7]!.data.object.notes).toBe("n");
    // One event, read alone.
    const one = await t.call("GET", `/api/v1/events/${events[3]!.id}`);
    expect(one.body).toEqual(events[3]);
  });

  test("a cascading delete writes one event per record; a new primary contact demotes the old one with its own event", async () => {
    const customer = await t.call("POST", "/api/v1/customers", { body: { name: "Cascade Co" } });
    const first = await t.call("POST", `/api/v1/customers/${customer.body.id}/contacts`, { body: { name: "Ada", is_primary: true } });
    const start = await head();
    const second = await t.call("POST", `/api/v1/customers/${customer.body.id}/contacts`, { body: { name: "Bob", is_primary: true } });
    const onboarding = await t.call("POST", "/api/v1/onboardings", { body: { customer_id: customer.body.id } });
    await t.call("DELETE", `/api/v1/customers/${customer.body.id}`);
    const { events } = await follow(start);
    expect(events.map((e) => `${e.type} ${e.data.object.id}`)).toEqual([
      `contact.updated ${first.body.id}`,
      `contact.created ${second.body.id}`,
      `onboarding.created ${onboarding.body.id}`,
      `contact.deleted ${first.body.id}`,
      `contact.deleted ${second.body.id}`,
      `onboarding.deleted ${onboarding.body.id}`,
      `customer.deleted ${customer.body.id}`,
    ]);
    expect(events[0]!.data.previous_attributes).toEqual({ is_primary: true });
    expect(events.slice(3).every((e) => e.data.object.deleted === true)).toBe(true);
  });

  test("filters: families, repeated types and one object; a test key's changes are in the feed with livemode false", async () => {
    const start = await head();
    const customer = await t.call("POST", "/api/v1/customers", { body: { name: "Filter Co" }, key: t.keys.test });
    const onboarding = await t.call("POST", "/api/v1/onboardings", { body: { customer_id: customer.body.id }, key: t.keys.test });
    await t.call("PATCH", `/api/v1/onboardings/${onboarding.body.id}`, { body: { phase: "review" }, key: t.keys.test });
    const all = await follow(start);
    expect(all.events.every((e) => e.livemode === false)).toBe(true);
    expect((await follow(start, "&type=onboarding.*")).events.map((e) => e.type)).toEqual(["onboarding.created", "onboarding.updated", "onboarding.phase_changed"]);
    expect((await follow(start, "&type=customer.created&type=onboarding.phase_changed")).events.map((e) => e.type)).toEqual(["customer.created", "onboarding.phase_changed"]);
    // Each type's run is cut at the page's size before the runs merge: the page is still the oldest first.
    const one = await t.call("GET", `/api/v1/events?after=${start}&limit=1&type=onboarding.phase_changed,customer.created`);
    expect([one.body.data.map((e: Ev) => e.type), one.body.has_more]).toEqual([["customer.created"], true]);
    expect((await follow(start, `&object_id=${customer.body.id}`)).events.map((e) => e.type)).toEqual(["customer.created"]);
    expectError(await t.call("GET", "/api/v1/events?type=widget.*"), 400, "invalid_enum_value", "type");
  });

  test("next_cursor is never null; a follower at the head waits there and then sees what comes next", async () => {
    const { cursor } = await follow(undefined);
    const empty = await t.call("GET", `/api/v1/events?after=${cursor}`);
    expect(empty.body).toEqual({ object: "list", data: [], has_more: false, next_cursor: cursor });
    const next = await t.call("POST", "/api/v1/customers", { body: { name: "Later Co" } });
    const later = await follow(cursor);
    expect(later.events.map((e) => e.data.object.id)).toEqual([next.body.id]);
  });

  test("another workspace's events are not there; a malformed cursor is 400; pruned past the cursor is 410", async () => {
    const mine = (await follow(undefined)).events;
    expect((await t.call("GET", `/api/v1/events/${mine[0]!.id}`, { key: t.keys.other })).status).toBe(404);
    expect((await t.call("GET", "/api/v1/events", { key: t.keys.other })).body.data).toEqual([]);
    expectError(await t.call("GET", "/api/v1/events?after=not-a-cursor"), 400, "invalid_string", "after");

    const old = await head();
    await t.call("POST", "/api/v1/customers", { body: { name: "Pruned Co" } });
    const afterFirst = await head();
    clock.advanceSeconds(31 * 86_400);
    await t.call("POST", "/api/v1/customers", { body: { name: "Kept Co" } });
    await pruneExpired(t.database, lifetimesFrom({}), clock.nowMicros());
    // The cursor before the pruned event lost it: 410. The one right after it lost nothing.
    expectError(await t.call("GET", `/api/v1/events?after=${old}`), 410, "cursor_expired", "after");
    const resumed = await follow(afterFirst);
    expect(resumed.events.map((e) => e.data.object.name)).toEqual(["Kept Co"]);
  });
});
