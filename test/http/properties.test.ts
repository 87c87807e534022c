import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fc from "fast-check";
import type { TObject } from "@sinclair/typebox";
import { statusOf, typeOf } from "../../api/http/error-map.ts";
import type { RouteDef } from "../../api/http/route.ts";
import { ERROR_CODES, type ErrorCode } from "../../shared/errors.ts";
import { createTestApp, type TestApp } from "../support/test-app.ts";

/**
 * Random requests against every route: bodies, queries, references and headers. Whatever
 * arrives, the answer is never a 5xx, every error has the documented shape with a status
 * that matches its code, and a refused request changes no data.
 */
let t: TestApp;
const refs: Record<string, string[]> = {};
beforeAll(async () => {
  t = await createTestApp();
  const customer = await t.call("POST", "/api/v1/customers", { body: { name: "Acme", slug: "acme-corp" } });
  const contact = await t.call("POST", `/api/v1/customers/${customer.body.id}/contacts`, { body: { name: "Ada", is_primary: true } });
  const onboarding = await t.call("POST", "/api/v1/onboardings", { body: { customer_id: customer.body.id } });
  refs.customer_ref = [customer.body.id, String(customer.body.display_id)];
  refs.contact_ref = [contact.body.id, String(contact.body.display_id)];
  refs.onboarding_ref = [onboarding.body.id, String(onboarding.body.display_id)];
});
afterAll(() => t.close());

// What a request may change. Left out: api_keys (usage is bookkeeping, flushed on a timer),
// the outbox's relayed_at (the relay marks earlier rows in the background) and its batches of
// activity entries (every call, refused or not, leaves one).
const TABLES: Record<string, string> = {
  customers: "*",
  contacts: "*",
  onboardings: "*",
  "outbox WHERE name <> 'activity.batch'": "id, queue, name, payload, created_at",
  sequences: "*",
  idempotency_keys: "*",
};
const snapshot = () =>
  Object.entries(TABLES)
    .map(async ([table, columns]) => JSON.stringify(await t.query(`SELECT ${columns} FROM ${table} ORDER BY 1, 2`)))
    .reduce(async (all, one) => `${await all}\n${await one}`, Promise.resolve(""));

const jsonish = fc.jsonValue({ maxDepth: 3 });
const refArb = (name: string) =>
  fc.oneof(
    fc.constantFrom(...(refs[name] ?? ["1"])),
    fc.string({ maxLength: 40 }),
    fc.stringMatching(/^[0-9]{1,25}$/),
    fc.constantFrom("0", "-1", "1e3", "%00", "..", "cus_", "onb_0000000000000000000000000", "%F0%9F%98%80"),
  );

/** Objects built from the route's own field names, so validation is exercised deeply. */
function bodyArb(route: RouteDef): fc.Arbitrary<string> {
  const fields = Object.keys((route.body as TObject | undefined)?.properties ?? {});
  const known = fields.length
    ? fc.dictionary(fc.constantFrom(...fields, "__proto__", "extra"), jsonish, { maxKeys: 6 })
    : fc.constant({});
  return fc.oneof(
    known.map((b) => JSON.stringify(b)),
    jsonish.map((b) => JSON.stringify(b)),
    fc.string({ maxLength: 60 }),
    fc.constantFrom("", "{", "[]", "null", '{"a":1}}', '{"name":"\\ud800"}', "\u0000"),
  );
}

function queryArb(route: RouteDef): fc.Arbitrary<string> {
  const names = Object.keys((route.query as TObject | undefined)?.properties ?? {});
  return fc
    .array(fc.tuple(fc.oneof(fc.constantFrom(...names, "limit", "cursor", "x"), fc.string({ maxLength: 8 })), fc.oneof(fc.string({ maxLength: 30 }), fc.constantFrom("1", "100", "101", "0", "-5", "2026-11-22T10:15:30Z", "launch", "active"))), { maxLength: 4 })
    .map((pairs) => (pairs.length ? `?${new URLSearchParams(pairs).toString()}` : ""));
}

const headerArb = fc.record({
  contentType: fc.constantFrom("application/json", "application/json; charset=utf-8", "text/plain", "application/x-www-form-urlencoded", "application/vnd.api+json", ""),
  idempotencyKey: fc.option(fc.string({ maxLength: 300 }), { nil: undefined }),
  authorization: fc.oneof(fc.constant("valid"), fc.constant("test"), fc.string({ maxLength: 30 }), fc.constantFrom("Bearer", "Bearer ", "bearer svc_x", "Basic abc")),
});

function checkResponse(response: { status: number; body: any }, label: string) {
  expect(`${label} → ${response.status}`).not.toMatch(/→ 5\d\d$/);
  if (response.status >= 400) {
    const error = response.body?.error;
    expect(ERROR_CODES).toContain(error?.code);
    expect(statusOf(error.code as ErrorCode)).toBe(response.status);
    expect(error.type).toBe(typeOf(error.code as ErrorCode));
    expect(typeof error.message).toBe("string");
    if ("field" in error) expect(typeof error.field).toBe("string");
  }
}

describe("property: any request to any route", () => {
  test("never a 5xx, always the error shape, and a refused request changes nothing", async () => {
    const routeArb = fc.constantFrom(...t.routes.filter((r) => r.path !== "/api/v1/health/ready"));
    const requestArb = routeArb.chain((route) =>
      fc.record({
        route: fc.constant(route),
        refs: fc.record({ customer_ref: refArb("customer_ref"), contact_ref: refArb("contact_ref"), onboarding_ref: refArb("onboarding_ref") }),
        query: queryArb(route),
        body: bodyArb(route),
        headers: headerArb,
      }),
    );

    await fc.assert(
      fc.asyncProperty(requestArb, async ({ route, refs, query, body, headers }) => {
        const path = route.path.replace(/:([a-z_]+)/g, (_, name: keyof typeof refs) => encodeURIComponent(refs[name]));
        const authorization =
          headers.authorization === "valid" ? `Bearer ${t.keys.live}` : headers.authorization === "test" ? `Bearer ${t.keys.test}` : headers.authorization;
        const sent: Record<string, string> = {};
        if (authorization !== "") sent.authorization = authorization;
        if (headers.contentType) sent["content-type"] = headers.contentType;
        if (headers.idempotencyKey !== undefined) {
          const safe = headers.idempotencyKey.replace(/[^\x20-\x7e]/g, "");
          if (safe) sent["idempotency-key"] = safe;
        }
        const before = await snapshot();
        const response = await t.call(route.method, `${path}${query}`, {
          key: null,
          headers: sent,
          body: route.method === "GET" || route.method === "DELETE" ? undefined : body,
        });
        checkResponse(response, `${route.method} ${path}${query}`);
        if (response.status >= 400) expect(await snapshot()).toBe(before);
      }),
      { numRuns: Number(process.env.FC_RUNS ?? 400), seed: Number(process.env.FC_SEED ?? Date.now() % 2 ** 31) },
    );
  });

  test("random paths and methods are clean 404s and 405s", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom("GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"),
        fc.array(fc.oneof(fc.constantFrom("api", "v1", "customers", "onboardings", "contacts", "me", "1"), fc.string({ maxLength: 10 })), { maxLength: 6 }),
        async (method, segments) => {
          const path = `/${segments.map(encodeURIComponent).join("/")}`;
          const response = await t.call(method, path, { key: t.keys.live });
          checkResponse(response, `${method} ${path}`);
        },
      ),
      { numRuns: 300 },
    );
  });
});
