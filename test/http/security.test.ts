import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestApp, expectError, type TestApp } from "../support/test-app.ts";

/**
 * The suite every authenticated route must pass, walked from the route table itself so a
 * new route cannot skip it: each refusal cause answers 401 with its own code, before the
 * body is even read, and another workspace's records answer exactly like missing ones.
 */
let t: TestApp;
const refs: Record<string, string> = {};

beforeAll(async () => {
  t = await createTestApp();
  const customer = await t.call("POST", "/api/v1/customers", { body: { name: "Acme Corp" } });
  const contact = await t.call("POST", `/api/v1/customers/${customer.body.id}/contacts`, { body: { name: "Ada" } });
  const onboarding = await t.call("POST", "/api/v1/onboardings", { body: { customer_id: customer.body.id } });
  refs.customer_ref = customer.body.id;
  refs.contact_ref = contact.body.id;
  refs.onboarding_ref = onboarding.body.id;
  refs.event_id = (await t.call("GET", "/api/v1/events?limit=1")).body.data[0].id;
  refs.endpoint_id = (await t.call("POST", "/api/v1/webhook_endpoints", { body: { url: "https://hooks.valid.example/in", enabled_events: ["*"] } })).body.id;
});
afterAll(() => t.close());

/** A valid body for each route that takes one, so only the reference decides the answer. */
const validBody = (operationId: string) =>
  ({
    createContact: { name: "Bob" },
    createOnboarding: { customer_id: refs.customer_ref },
    createWebhookEndpoint: { url: "https://hooks.valid.example/in", enabled_events: ["*"] },
    recoverWebhookEvents: { since: "2026-01-01T00:00:00Z" },
  })[operationId] ?? {};

/**
 * A route's path with its parameters filled from `values`. A parameter without a value throws:
 * filling `undefined` would make a new route's cross-workspace check pass without testing it.
 * A new resource adds its own fixture to `refs`.
 */
const pathFor = (path: string, values: Record<string, string>) =>
  path.replace(/:([a-z_]+)/g, (_, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`security.test.ts has no fixture for ':${name}' in ${path}: add one to refs`);
    return value;
  });

describe("every authenticated route", () => {
  test("every path parameter of every route has a fixture (an unknown one fails loudly)", () => {
    for (const route of t.routes.filter((r) => r.authenticated)) expect(() => pathFor(route.path, refs)).not.toThrow();
    expect(() => pathFor("/api/v1/widgets/:widget_ref", refs)).toThrow("no fixture for ':widget_ref'");
  });

  test("the route table has authenticated routes of every method", () => {
    const methods = new Set(t.routes.filter((r) => r.authenticated).map((r) => r.method));
    expect([...methods].sort()).toEqual(["DELETE", "GET", "PATCH", "POST"]);
  });

  const cases: [string, (key: string) => Record<string, string>, string][] = [
    ["no Authorization header", () => ({}), "missing_api_key"],
    ["a key without the Bearer scheme", (key) => ({ authorization: key }), "malformed_authorization_header"],
    ["'Bearer:' with a colon", (key) => ({ authorization: `Bearer: ${key}` }), "malformed_authorization_header"],
    ["Basic credentials", () => ({ authorization: "Basic dXNlcjpwYXNz" }), "malformed_authorization_header"],
    ["white space inside the key", (key) => ({ authorization: `Bearer ${key.slice(0, 10)} ${key.slice(10)}` }), "malformed_authorization_header"],
    ["a non-breaking space after the key", (key) => ({ authorization: `Bearer ${key}\u00a0` }), "malformed_authorization_header"],
    ["an unknown key", () => ({ authorization: `Bearer svc_${"x".repeat(40)}` }), "invalid_api_key"],
    ["a string that is no key at all", () => ({ authorization: "Bearer hello" }), "invalid_api_key"],
  ];

  for (const [what, headers, code] of cases) {
    test(`${what} → 401 ${code}`, async () => {
      for (const route of t.routes.filter((r) => r.authenticated)) {
        const response = await t.call(route.method, pathFor(route.path, refs), {
          key: null,
          headers: headers(t.keys.live),
          body: route.body ? "{not json" : undefined,
        });
        expectError(response, 401, code);
        expect(response.body.error.type).toBe("authentication_error");
      }
    });
  }

  test("a revoked key → 401 api_key_revoked, on every route", async () => {
    for (const route of t.routes.filter((r) => r.authenticated)) {
      const response = await t.call(route.method, pathFor(route.path, refs), { key: t.keys.revoked });
      expectError(response, 401, "api_key_revoked");
    }
  });

  test("a key in the query string is not accepted", async () => {
    const response = await t.call("GET", `/api/v1/me?api_key=${t.keys.live}`, { key: null });
    expectError(response, 401, "missing_api_key");
  });

  test("lowercase 'bearer' is accepted", async () => {
    const response = await t.call("GET", "/api/v1/me", { key: null, headers: { authorization: `bearer ${t.keys.live}` } });
    expect(response.status).toBe(200);
  });

  test("another workspace's record answers exactly like a missing one", async () => {
    for (const route of t.routes.filter((r) => r.authenticated && r.path.includes(":"))) {
      const body = route.body ? validBody(route.operationId) : undefined;
      const foreign = await t.call(route.method, pathFor(route.path, refs), { key: t.keys.other, body });
      const missing = await t.call(
        route.method,
        pathFor(route.path, Object.fromEntries(Object.entries(refs).map(([k, v]) => [k, v.replace(/.$/, "0")]))),
        { key: t.keys.other, body },
      );
      expect(foreign.status).toBe(404);
      expect(foreign.body.error.code).toBe(missing.body.error.code);
      expect(foreign.body.error.message.replace(/'[^']*'/, "'…'")).toBe(missing.body.error.message.replace(/'[^']*'/, "'…'"));
    }
  });

  test("another workspace's lists do not show these records", async () => {
    for (const path of ["/api/v1/customers", "/api/v1/onboardings"]) {
      const response = await t.call("GET", path, { key: t.keys.other });
      expect(response.body.data).toEqual([]);
    }
  });

  test("a customer of another workspace cannot parent an onboarding", async () => {
    const response = await t.call("POST", "/api/v1/onboardings", { key: t.keys.other, body: { customer_id: refs.customer_ref } });
    expectError(response, 404, "customer_not_found", "customer_id");
  });

  test("public routes need no key", async () => {
    for (const route of t.routes.filter((r) => !r.authenticated && r.path !== "/api/v1/health/ready")) {
      const response = await t.call(route.method, route.path, { key: null });
      expect(response.status).toBe(200);
    }
  });
});
