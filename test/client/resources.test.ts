import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { OnboardingApiError, OnboardingClient, type Customer, type Event } from "../../client";
import { clientOf, extraKey, startApiProcess, type ApiProcess } from "./support/service.ts";

/**
 * Every resource of the API through the client, against the real API process (its entry
 * point, over HTTP) on the suite's engine: what an integrator's code meets.
 */
let api: ApiProcess;
let client: OnboardingClient;
beforeAll(async () => {
  api = await startApiProcess();
  client = clientOf(api);
});
afterAll(async () => {
  await api?.stop();
});

const collect = async <T>(iterable: AsyncIterable<T>): Promise<T[]> => {
  const items: T[] = [];
  for await (const item of iterable) items.push(item);
  return items;
};

describe("the client against the real service", () => {
  test("me(): the calling key and its workspace", async () => {
    const me = await client.me();
    expect(me.object).toBe("me");
    expect(me.organization.slug).toBe("acme");
    expect(me.api_key.rate_limit_tier).toBe("paid");
    expect(me.api_key.prefix).toBe(api.key.slice(0, 12));
    // A base URL given with /api/v1 and a trailing slash means the same place.
    expect((await new OnboardingClient({ apiKey: api.key, baseUrl: `${api.base}/api/v1/` }).me()).org_id).toBe(me.org_id);
  });

  test("customers: create, retrieve by id and by display_id, update, list every page, delete", async () => {
    const created: Customer[] = [];
    for (let i = 0; i < 7; i++) created.push(await client.customers.create({ name: `Paged ${i}`, metadata: { n: i } }));
    const first = created[0]!;
    expect(first.object).toBe("customer");
    expect(first.slug).toBe("paged-0");
    expect(await client.customers.retrieve(first.id)).toEqual(first);
    expect(await client.customers.retrieve(first.display_id)).toEqual(first);
    expect(await client.customers.retrieve(String(first.display_id))).toEqual(first);

    const updated = await client.customers.update(first.id, { status: "active", domain: "paged.example" });
    expect(updated).toMatchObject({ id: first.id, status: "active", domain: "paged.example" });

    // Seven customers in pages of two: four requests, every one once, newest first.
    const listed = client.customers.list({ limit: 2 });
    const pages = await collect(listed.pages());
    expect(pages.map((p) => p.data.length)).toEqual([2, 2, 2, 1]);
    expect(pages.map((p) => p.has_more)).toEqual([true, true, true, false]);
    const ids = (await collect(listed)).map((c) => c.id);
    expect(ids).toEqual(created.map((c) => c.id).reverse());
    expect((await client.customers.list({ limit: 3, status: "active" }).toArray()).map((c) => c.id)).toEqual([first.id]);
    // A starting cursor: only what was created before it.
    expect((await client.customers.list({ limit: 2, cursor: created[2]!.created_at }).toArray()).map((c) => c.id)).toEqual([created[1]!.id, first.id]);

    const deleted = await client.customers.delete(first.id);
    expect(deleted).toEqual({ object: "customer", id: first.id, deleted: true });
    const gone = await client.customers.retrieve(first.id).catch((e: unknown) => e);
    expect(gone).toBeInstanceOf(OnboardingApiError);
    expect(gone).toMatchObject({ status: 404, type: "not_found", code: "customer_not_found" });
    expect((gone as OnboardingApiError).requestId).toMatch(/^req_/);
  });

  test("contacts: every method takes the customer first", async () => {
    const customer = await client.customers.create({ name: "Contact Co" });
    const ada = await client.contacts.create(customer.id, { name: "Ada", email: "ada@contact.example", is_primary: true });
    const bob = await client.contacts.create(customer.display_id, { name: "Bob", title: "CTO" });
    expect(ada).toMatchObject({ object: "contact", customer_id: customer.id, is_primary: true });
    expect(await client.contacts.retrieve(customer.id, ada.display_id)).toEqual(ada);

    const promoted = await client.contacts.update(customer.id, bob.id, { is_primary: true });
    expect(promoted.is_primary).toBe(true);
    expect((await client.contacts.retrieve(customer.id, ada.id)).is_primary).toBe(false);

    const all = await client.contacts.list(customer.id, { limit: 1 }).toArray();
    expect(all.map((c) => c.id)).toEqual([bob.id, ada.id]);

    expect(await client.contacts.delete(customer.id, ada.id)).toEqual({ object: "contact", id: ada.id, deleted: true });
    expect(await client.contacts.list(customer.id).toArray()).toHaveLength(1);
    await expect(client.contacts.retrieve(customer.id, ada.id)).rejects.toMatchObject({ status: 404, code: "contact_not_found" });
  });

  test("onboardings: create, update, filter by phase across pages, a customer's list, phase durations, delete", async () => {
    const customer = await client.customers.create({ name: "Phased Co" });
    const other = await client.customers.create({ name: "Other Co" });
    const inReview: string[] = [];
    for (let i = 0; i < 5; i++) {
      const onboarding = await client.onboardings.create({ customer_id: i % 2 ? customer.display_id : customer.id, notes: `#${i}` });
      if (i !== 2) inReview.push((await client.onboardings.update(onboarding.id, { phase: "review" })).id);
    }
    const elsewhere = await client.onboardings.create({ customer_id: other.id, phase: "review" });

    const reviewed: string[] = [];
    for await (const o of client.onboardings.list({ phase: "review", limit: 2 })) reviewed.push(o.id);
    expect(reviewed).toEqual([elsewhere.id, ...[...inReview].reverse()]);
    expect((await client.onboardings.listForCustomer(other.display_id, { phase: "review" }).toArray()).map((o) => o.id)).toEqual([elsewhere.id]);
    expect(await client.onboardings.listForCustomer(customer.id, { limit: 2 }).toArray()).toHaveLength(5);

    const one = await client.onboardings.retrieve(inReview[0]!);
    expect(one).toMatchObject({ object: "onboarding", phase: "review", customer_id: customer.id });
    expect(await client.onboardings.retrieve(one.display_id)).toEqual(one);

    const durations = await client.onboardings.phaseDurations(one.id);
    expect(durations.object).toBe("phase_durations");
    expect(durations.onboarding_id).toBe(one.id);
    expect(durations.phases.map((p) => p.phase)).toEqual(["before_getting_started", "review"]);
    expect(durations.current.phase).toBe("review");

    const report = await client.reports.phaseDurations({ customer_id: customer.display_id });
    expect(report.object).toBe("phase_duration_report");
    expect(report.phases.find((p) => p.phase === "before_getting_started")?.visits).toBe(4);

    expect(await client.onboardings.delete(one.id)).toEqual({ object: "onboarding", id: one.id, deleted: true });
    await expect(client.onboardings.update(one.id, { state: "paused" })).rejects.toMatchObject({ status: 404, code: "onboarding_not_found" });
  });

  test("events: the cursor, a page walk after it, one event, typed by its type", async () => {
    const { cursor } = await client.events.cursor();
    const customer = await client.customers.create({ name: "Evented Co" }, { idempotencyKey: "evented-co" });
    const onboarding = await client.onboardings.create({ customer_id: customer.id });
    await client.onboardings.update(onboarding.id, { phase: "program_design" });
    await client.customers.delete(customer.id);

    const events = await client.events.list({ after: cursor, limit: 2 }).toArray();
    expect(events.map((e) => e.type)).toEqual([
      "customer.created",
      "onboarding.created",
      "onboarding.updated",
      "onboarding.phase_changed",
      "onboarding.deleted",
      "customer.deleted",
    ]);
    const created = events[0]!;
    expect(created.request).toMatchObject({ idempotency_key: "evented-co" });
    expect(await client.events.retrieve(created.id)).toEqual(created);

    const changed = events.find((e): e is Event<"onboarding.phase_changed"> => e.type === "onboarding.phase_changed")!;
    expect(changed.data.object.phase).toBe("program_design");
    expect(changed.data.previous_attributes?.phase).toBe("before_getting_started");
    // Filters: a family, and one record.
    expect((await client.events.list({ after: cursor, type: ["customer.*"] }).toArray()).map((e) => e.type)).toEqual(["customer.created", "customer.deleted"]);
    expect(await client.events.list({ after: cursor, object_id: onboarding.id, type: "onboarding.created,onboarding.deleted" }).toArray()).toHaveLength(2);
    await expect(client.events.list({ after: "not a cursor" }).toArray()).rejects.toMatchObject({ status: 400, code: "invalid_string", field: "after" });
  });

  test("webhook endpoints: create (secret once), retrieve, update, list, rotate, ping, attempts, recover, delete", async () => {
    const made = await client.webhookEndpoints.create({ url: "https://hooks.example.com/onboarding", enabled_events: ["onboarding.*"], description: "crm" });
    expect(made.secret).toMatch(/^whsec_/);
    const { secret: _secret, ...endpoint } = made;
    expect(await client.webhookEndpoints.retrieve(made.id)).toEqual(endpoint);
    const second = await client.webhookEndpoints.create({ url: "https://hooks.example.com/second", enabled_events: ["*"] });

    const disabled = await client.webhookEndpoints.update(made.id, { status: "disabled", enabled_events: ["customer.created"] });
    expect(disabled).toMatchObject({ status: "disabled", enabled_events: ["customer.created"] });
    expect((await client.webhookEndpoints.list({ limit: 1 }).toArray()).map((e) => e.id)).toEqual([second.id, made.id]);

    const rotated = await client.webhookEndpoints.rotateSecret(made.id);
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(made.secret);

    const ping = await client.webhookEndpoints.ping(made.id);
    expect(ping).toMatchObject({ object: "webhook_ping", endpoint_id: made.id });
    expect(await client.webhookEndpoints.attempts(made.id).toArray()).toEqual([]); // no worker runs here
    const recovery = await client.webhookEndpoints.recover(made.id, { since: new Date(Date.now() - 3600_000).toISOString() });
    expect(recovery).toMatchObject({ object: "webhook_recovery", endpoint_id: made.id, has_more: false });

    // A test key changes data but never sends anything out.
    const testKey = await extraKey(api, { name: "ci-suite", mode: "test" });
    const testClient = clientOf(api, { apiKey: testKey.key });
    await expect(testClient.webhookEndpoints.ping(made.id)).rejects.toMatchObject({ status: 403, type: "permission_error", code: "test_mode_outbound" });

    expect(await client.webhookEndpoints.delete(second.id)).toMatchObject({ id: second.id, deleted: true });
    await expect(client.webhookEndpoints.retrieve(second.id)).rejects.toMatchObject({ status: 404, code: "webhook_endpoint_not_found" });
    await expect(client.webhookEndpoints.create({ url: "http://hooks.example.com/plain", enabled_events: ["*"] })).rejects.toMatchObject({ status: 400, code: "url_not_allowed", field: "url" });
  });

  test("errors carry the contract's fields: status, type, code, message, field, requestId", async () => {
    await client.customers.create({ name: "Taken", slug: "taken" });
    const taken = (await client.customers.create({ name: "Taken again", slug: "taken" }).catch((e: unknown) => e)) as OnboardingApiError;
    expect(taken).toBeInstanceOf(OnboardingApiError);
    expect({ status: taken.status, type: taken.type, code: taken.code, field: taken.field }).toEqual({ status: 409, type: "conflict", code: "slug_taken", field: "slug" });
    expect(taken.requestId).toMatch(/^req_/);
    expect(taken.message.length).toBeGreaterThan(0);

    // Types keep most mistakes out; what gets through is refused by the service, named by field.
    const invalid = (await client.onboardings.create({ customer_id: "cus_missing", reminder_frequency_days: 0 }).catch((e: unknown) => e)) as OnboardingApiError;
    expect({ status: invalid.status, code: invalid.code, field: invalid.field }).toEqual({ status: 400, code: "too_small", field: "reminder_frequency_days" });

    const stranger = new OnboardingClient({ apiKey: "svc_" + "x".repeat(40), baseUrl: api.base });
    await expect(stranger.me()).rejects.toMatchObject({ status: 401, type: "authentication_error", code: "invalid_api_key" });
  });
});
