import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestApp, expectError, type TestApp } from "../support/test-app.ts";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

describe("protocol errors", () => {
  test("an unknown path is 404 route_not_found, with a Request-Id", async () => {
    expectError(await t.call("GET", "/api/v1/customer"), 404, "route_not_found");
    expectError(await t.call("GET", "/api/v2"), 404, "route_not_found");
  });

  test("a wrong method on a known path is 405 with Allow", async () => {
    const response = await t.call("PUT", "/api/v1/customers");
    expectError(response, 405, "method_not_allowed");
    expect(response.headers.get("allow")).toBe("GET, POST, OPTIONS");
    expectError(await t.call("POST", "/api/v1/onboardings/12"), 405, "method_not_allowed");
  });

  test("a body that is not JSON is 400 invalid_json; a non-JSON type is 415", async () => {
    expectError(await t.call("POST", "/api/v1/customers", { body: "{name:" }), 400, "invalid_json");
    expectError(await t.call("POST", "/api/v1/customers", { body: "[1,2" }), 400, "invalid_json");
    expectError(await t.call("POST", "/api/v1/customers", { body: "name=x", headers: { "content-type": "application/x-www-form-urlencoded" } }), 415, "unsupported_media_type");
    expectError(await t.call("POST", "/api/v1/customers", { body: '{"name":"x"}', headers: { "content-type": "text/plain" } }), 415, "unsupported_media_type");
    const charset = await t.call("POST", "/api/v1/customers", { body: '{"name":"x"}', headers: { "content-type": "application/json; charset=utf-8" } });
    expect(charset.status).toBe(201);
  });

  test("a body that is JSON but not an object is 400 invalid_type", async () => {
    for (const body of ["[]", "42", '"x"', "null", "true"]) {
      expectError(await t.call("POST", "/api/v1/customers", { body }), 400, "invalid_type", "body");
    }
  });

  test("a body over 1 MiB is 413 body_too_large", async () => {
    const big = JSON.stringify({ name: "x", metadata: { blob: "x".repeat(1024 * 1024) } });
    expectError(await t.call("POST", "/api/v1/customers", { body: big }), 413, "body_too_large");
  });

  test("invalid UTF-8 is 400 invalid_json", async () => {
    const response = await t.app.handle(
      new Request("http://localhost/api/v1/customers", {
        method: "POST",
        headers: { authorization: `Bearer ${t.keys.live}`, "content-type": "application/json" },
        body: new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]),
      }),
    );
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe("invalid_json");
  });

  test("a query parameter given twice is refused", async () => {
    expectError(await t.call("GET", "/api/v1/customers?limit=1&limit=2"), 400, "invalid_type", "limit");
  });

  test("odd input never produces a 500", async () => {
    const bodies = [
      '{"name":"\\u0000nul"}',
      '{"name":"x","__proto__":{"admin":true}}',
      '{"name":"x","metadata":{"__proto__":{"polluted":1}}}',
      `{"name":"x","metadata":{"n":${"9".repeat(400)}}}`,
      `{"name":"x","metadata":${"[".repeat(5000)}${"]".repeat(5000)}}`,
      '{"name":"😀 \\ud800 unpaired"}',
    ];
    for (const body of bodies) {
      const response = await t.call("POST", "/api/v1/customers", { body });
      expect(response.status).toBeLessThan(500);
      expect(response.headers.get("request-id")).toMatch(/^req_/);
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
  });

  test("every response carries a unique Request-Id", async () => {
    const a = await t.call("GET", "/api/v1/me");
    const b = await t.call("GET", "/api/v1/nope");
    expect(a.headers.get("request-id")).toMatch(/^req_/);
    expect(a.headers.get("request-id")).not.toBe(b.headers.get("request-id"));
  });
});

describe("hostile input", () => {
  const count = () => t.count("customers");

  test("NUL characters, unpaired surrogates, huge numbers and deep nesting are 400s that store nothing", async () => {
    const before = await count();
    const cases: [string, string, string][] = [
      ['{"name":"a\\u0000b"}', "invalid_string", "name"],
      ['{"name":"x","metadata":{"k\\u0000":1}}', "invalid_string", "metadata.k\u0000"],
      ['{"name":"\\ud800"}', "invalid_string", "name"],
      ['{"name":"x","metadata":{"n":9007199254740993}}', "too_big", "metadata.n"],
      ['{"name":"x","metadata":{"n":1e400}}', "too_big", "metadata.n"],
    ];
    for (const [body, code, field] of cases) {
      expectError(await t.call("POST", "/api/v1/customers", { body }), 400, code, field);
    }
    // 32 levels at most: the error names the path where the limit was crossed.
    const deep = await t.call("POST", "/api/v1/customers", { body: `{"name":"x","metadata":{"d":${"[".repeat(40)}${"]".repeat(40)}}}` });
    expectError(deep, 400, "too_big");
    expect(deep.body.error.field).toStartWith("metadata.d.0.0.0");
    expect(await count()).toBe(before);
  });

  test("__proto__ and friends are plain data, never prototypes", async () => {
    expectError(await t.call("POST", "/api/v1/customers", { body: '{"name":"x","__proto__":{"admin":true}}' }), 400, "unknown_field", "__proto__");
    const created = await t.call("POST", "/api/v1/customers", { body: '{"name":"x","metadata":{"__proto__":{"polluted":1},"constructor":"c"}}' });
    expect(created.status).toBe(201);
    expect(created.text).toContain('"__proto__":{"polluted":1}');
    const fetched = await t.call("GET", `/api/v1/customers/${created.body.id}`);
    expect(fetched.text).toContain('"__proto__":{"polluted":1}');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  test("emoji and other valid Unicode round-trip exactly", async () => {
    const name = "Ωmega 😀 Ünïcode 中文 \u200b";
    const created = await t.call("POST", "/api/v1/customers", { body: { name, metadata: { emoji: "🚀", rtl: "مرحبا" } } });
    expect(created.body.name).toBe(name);
    expect((await t.call("GET", `/api/v1/customers/${created.body.id}`)).body.metadata).toEqual({ emoji: "🚀", rtl: "مرحبا" });
  });

  test("overlong references and headers are clear 4xx answers", async () => {
    expectError(await t.call("GET", `/api/v1/customers/${"x".repeat(5000)}`), 400, "too_big", "customer_ref");
    expectError(await t.call("GET", "/api/v1/me", { key: null, headers: { authorization: `Bearer svc_${"a".repeat(6000)}` } }), 401, "invalid_api_key");
  });
});
