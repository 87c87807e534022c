import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Contact, ContactList } from "../../api/contacts/contacts.schema.ts";
import { createTestApp, expectError, expectSchema, type TestApp } from "../support/test-app.ts";

let t: TestApp;
let customer: { id: string; display_id: number };
beforeAll(async () => {
  t = await createTestApp();
  customer = (await t.call("POST", "/api/v1/customers", { body: { name: "Acme" } })).body;
});
afterAll(() => t.close());

const base = () => `/api/v1/customers/${customer.id}/contacts`;

describe("contacts", () => {
  test("create answers 201 with the contact; defaults are null and not primary", async () => {
    const response = await t.call("POST", base(), { body: { name: "Ada Lovelace" } });
    expect(response.status).toBe(201);
    expectSchema(Contact, response.body);
    expect(response.body).toMatchObject({ object: "contact", customer_id: customer.id, email: null, title: null, is_primary: false });
  });

  test("only one primary contact: making one primary clears the other", async () => {
    const a = await t.call("POST", base(), { body: { name: "A", email: "a@acme.example", is_primary: true } });
    const b = await t.call("POST", base(), { body: { name: "B", is_primary: true } });
    expect(b.body.is_primary).toBe(true);
    expect((await t.call("GET", `${base()}/${a.body.id}`)).body.is_primary).toBe(false);
    const again = await t.call("PATCH", `${base()}/${a.body.display_id}`, { body: { is_primary: true } });
    expect(again.body.is_primary).toBe(true);
    expect((await t.call("GET", `${base()}/${b.body.id}`)).body.is_primary).toBe(false);
    const primaries = (await t.call("GET", `${base()}?limit=100`)).body.data.filter((c: { is_primary: boolean }) => c.is_primary);
    expect(primaries).toHaveLength(1);
  });

  test("validation: name required, e-mail must be an address, no unknown fields", async () => {
    expectError(await t.call("POST", base(), { body: { email: "x@y.example" } }), 400, "missing_field", "name");
    expectError(await t.call("POST", base(), { body: { name: "X", email: "not-an-address" } }), 400, "invalid_string", "email");
    expectError(await t.call("POST", base(), { body: { name: "X", is_primary: "yes" } }), 400, "invalid_type", "is_primary");
    expectError(await t.call("POST", base(), { body: { name: "X", phone: "1" } }), 400, "unknown_field", "phone");
  });

  test("list, retrieve, update and delete under the customer", async () => {
    const created = await t.call("POST", base(), { body: { name: "Listed", title: "CTO" } });
    const list = await t.call("GET", `/api/v1/customers/${customer.display_id}/contacts?limit=2`);
    expectSchema(ContactList, list.body);
    expect(list.body.data[0].id).toBe(created.body.id);
    const updated = await t.call("PATCH", `${base()}/${created.body.id}`, { body: { title: null, email: "l@acme.example" } });
    expect(updated.body).toMatchObject({ title: null, email: "l@acme.example", name: "Listed" });
    const deleted = await t.call("DELETE", `${base()}/${created.body.id}`);
    expect(deleted.body).toEqual({ object: "contact", id: created.body.id, deleted: true });
    expectError(await t.call("GET", `${base()}/${created.body.id}`), 404, "contact_not_found");
    expectError(await t.call("DELETE", `${base()}/${created.body.id}`), 404, "contact_not_found");
  });

  test("a contact is only found under its own customer", async () => {
    const other = (await t.call("POST", "/api/v1/customers", { body: { name: "Other" } })).body;
    const contact = await t.call("POST", base(), { body: { name: "Mine" } });
    expectError(await t.call("GET", `/api/v1/customers/${other.id}/contacts/${contact.body.id}`), 404, "contact_not_found");
    expectError(await t.call("GET", "/api/v1/customers/cus_missing/contacts"), 404, "customer_not_found");
  });
});

describe("customers and contacts read together", () => {
  test("GETs at once (one statement a moment on PostgreSQL): each answers what it would alone, never another workspace's or another customer's record", async () => {
    const other = (await t.call("POST", "/api/v1/customers", { body: { name: "Other Co" } })).body;
    const foreign = (await t.call("POST", "/api/v1/customers", { body: { name: "Foreign Co" }, key: t.keys.other })).body;
    const mine = await Promise.all(["A", "B", "C"].map(async (name) => (await t.call("POST", base(), { body: { name } })).body));
    const theirs = (await t.call("POST", `/api/v1/customers/${other.id}/contacts`, { body: { name: "D" } })).body;
    const get = (path: string, key?: string) => () => t.call("GET", path, { key });
    const asked = [
      get(`/api/v1/customers/${customer.id}`),
      get(`/api/v1/customers/${other.id}`),
      get(`/api/v1/customers/${foreign.id}`, t.keys.other),
      get(`/api/v1/customers/${foreign.id}`), // another workspace's: 404
      ...mine.map((c) => get(`${base()}/${c.id}`)),
      get(`/api/v1/customers/${other.id}/contacts/${theirs.id}`),
      get(`${base()}/${theirs.id}`), // another customer's contact: 404
      get(`/api/v1/customers/${foreign.id}/contacts/${mine[0].id}`, t.keys.other), // another workspace's: 404
    ];
    const together = await Promise.all(asked.map((ask) => ask()));
    const alone: Awaited<ReturnType<ReturnType<typeof get>>>[] = [];
    for (const ask of asked) alone.push(await ask());
    expect(together.map((r) => r.status)).toEqual([200, 200, 200, 404, 200, 200, 200, 200, 404, 404]);
    expect(together.map((r) => r.body)).toEqual(alone.map((r) => r.body));
    expect(together.slice(0, 3).map((r) => r.body.id)).toEqual([customer.id, other.id, foreign.id]);
    expect(together.slice(4, 8).map((r) => r.body)).toEqual([...mine, theirs]);
  });
});
