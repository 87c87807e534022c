import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Customer, DeletedCustomer } from "../../api/customers/customers.schema.ts";
import { createTestApp, expectError, expectSchema, type TestApp } from "../support/test-app.ts";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

describe("customers", () => {
  test("create answers 201 with every field, defaults filled", async () => {
    const response = await t.call("POST", "/api/v1/customers", { body: { name: "Acme Corp", domain: "acme.example", metadata: { crm: { id: 7, tags: ["a"] } } } });
    expect(response.status).toBe(201);
    expectSchema(Customer, response.body);
    expect(response.body).toMatchObject({
      object: "customer",
      name: "Acme Corp",
      slug: "acme-corp",
      domain: "acme.example",
      status: "onboarding",
      metadata: { crm: { id: 7, tags: ["a"] } },
    });
    expect(response.body.id).toMatch(/^cus_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(response.body.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    expect(response.body.updated_at).toBe(response.body.created_at);
  });

  test("display ids count from 1 per workspace and are never reused after a delete", async () => {
    const a = await t.call("POST", "/api/v1/customers", { key: t.keys.other, body: { name: "First" } });
    expect(a.body.display_id).toBe(1);
    await t.call("DELETE", `/api/v1/customers/${a.body.id}`, { key: t.keys.other });
    const b = await t.call("POST", "/api/v1/customers", { key: t.keys.other, body: { name: "Second" } });
    expect(b.body.display_id).toBe(2);
  });

  test("a derived slug is made unique; a taken explicit slug is 409 slug_taken", async () => {
    const first = await t.call("POST", "/api/v1/customers", { body: { name: "Ünïcode & Co." } });
    const second = await t.call("POST", "/api/v1/customers", { body: { name: "Ünïcode & Co." } });
    expect([first.body.slug, second.body.slug]).toEqual(["unicode-co", "unicode-co-2"]);
    expectError(await t.call("POST", "/api/v1/customers", { body: { name: "X", slug: "unicode-co" } }), 409, "slug_taken", "slug");
    expect((await t.call("POST", "/api/v1/customers", { body: { name: "!!!" } })).body.slug).toBe("customer");
  });

  test("a deleted customer's slug is free again", async () => {
    const first = await t.call("POST", "/api/v1/customers", { body: { name: "Reuse", slug: "reuse-me" } });
    await t.call("DELETE", `/api/v1/customers/${first.body.id}`);
    expect((await t.call("POST", "/api/v1/customers", { body: { name: "Reuse", slug: "reuse-me" } })).status).toBe(201);
  });

  test("field rules: name, slug, domain, status, metadata", async () => {
    const bad: [unknown, string, string][] = [
      [{}, "missing_field", "name"],
      [{ name: "" }, "too_small", "name"],
      [{ name: "x".repeat(201) }, "too_big", "name"],
      [{ name: 5 }, "invalid_type", "name"],
      [{ name: "A", slug: "Not A Slug" }, "invalid_string", "slug"],
      [{ name: "A", slug: "a".repeat(65) }, "too_big", "slug"],
      [{ name: "A", domain: "not a host" }, "invalid_string", "domain"],
      [{ name: "A", status: "deleted" }, "invalid_enum_value", "status"],
      [{ name: "A", metadata: [1, 2] }, "invalid_type", "metadata"],
      [{ name: "A", metadata: "x" }, "invalid_type", "metadata"],
      [{ name: "A", metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i])) }, "too_big", "metadata"],
      [{ name: "A", metadata: { blob: "x".repeat(17_000) } }, "too_big", "metadata"],
      [{ name: "A", colour: "red" }, "unknown_field", "colour"],
    ];
    for (const [body, code, field] of bad) {
      expectError(await t.call("POST", "/api/v1/customers", { body }), 400, code, field);
    }
    const nullDomain = await t.call("POST", "/api/v1/customers", { body: { name: "No domain", domain: null } });
    expect(nullDomain.body.domain).toBeNull();
  });

  test("retrieve by id or display_id; 404 customer_not_found otherwise", async () => {
    const created = await t.call("POST", "/api/v1/customers", { body: { name: "Findable" } });
    expect((await t.call("GET", `/api/v1/customers/${created.body.id}`)).body).toEqual(created.body);
    expect((await t.call("GET", `/api/v1/customers/${created.body.display_id}`)).body).toEqual(created.body);
    expectError(await t.call("GET", "/api/v1/customers/cus_nope"), 404, "customer_not_found");
    expectError(await t.call("GET", "/api/v1/customers/99999999999999999999"), 404, "customer_not_found");
  });

  test("PATCH changes only what it names; metadata is replaced whole", async () => {
    const created = await t.call("POST", "/api/v1/customers", { body: { name: "Patchable", metadata: { a: 1, b: 2 } } });
    const patched = await t.call("PATCH", `/api/v1/customers/${created.body.id}`, { body: { status: "active", metadata: { c: 3 } } });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ name: "Patchable", slug: created.body.slug, status: "active", metadata: { c: 3 } });
    expect(patched.body.updated_at > created.body.updated_at).toBe(true);
    const unchanged = await t.call("PATCH", `/api/v1/customers/${created.body.id}`, { body: { status: "active" } });
    expect(unchanged.body.updated_at).toBe(patched.body.updated_at);
    const renamed = await t.call("PATCH", `/api/v1/customers/${created.body.display_id}`, { body: { slug: "patched-slug", domain: null } });
    expect(renamed.body).toMatchObject({ slug: "patched-slug", domain: null });
    expectError(await t.call("PATCH", `/api/v1/customers/${created.body.id}`, { body: { slug: "acme-corp" } }), 409, "slug_taken", "slug");
    expectError(await t.call("PATCH", `/api/v1/customers/${created.body.id}`, { body: { id: "cus_x" } }), 400, "unknown_field", "id");
  });

  test("DELETE soft-deletes the customer with its contacts and onboardings; twice is 404", async () => {
    const customer = await t.call("POST", "/api/v1/customers", { body: { name: "Doomed" } });
    const contact = await t.call("POST", `/api/v1/customers/${customer.body.id}/contacts`, { body: { name: "C" } });
    const onboarding = await t.call("POST", "/api/v1/onboardings", { body: { customer_id: customer.body.id } });
    const deleted = await t.call("DELETE", `/api/v1/customers/${customer.body.display_id}`);
    expect(deleted.status).toBe(200);
    expectSchema(DeletedCustomer, deleted.body);
    expect(deleted.body).toEqual({ object: "customer", id: customer.body.id, deleted: true });
    expectError(await t.call("DELETE", `/api/v1/customers/${customer.body.id}`), 404, "customer_not_found");
    expectError(await t.call("GET", `/api/v1/customers/${customer.body.id}`), 404, "customer_not_found");
    expectError(await t.call("GET", `/api/v1/onboardings/${onboarding.body.id}`), 404, "onboarding_not_found");
    expectError(await t.call("GET", `/api/v1/customers/${customer.body.id}/contacts/${contact.body.id}`), 404, "customer_not_found");
    // Kept internally, as the spec requires of a soft delete.
    const rows = (await t.query<{ deleted_at: unknown }>("SELECT deleted_at FROM onboardings WHERE id = ?", onboarding.body.id)).map((r) => ({ deleted_at: Number(r.deleted_at) }));
    expect(rows[0]!.deleted_at).toBeGreaterThan(0);
  });
});
