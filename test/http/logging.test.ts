import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createLogger } from "../../shared/logger.ts";
import { createTestApp, type TestApp } from "../support/test-app.ts";

const lines: string[] = [];
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ logger: createLogger("info", { service: "api" }, (line) => lines.push(line)) });
});
afterAll(() => t.close());

describe("request logs", () => {
  test("one JSON line per request with id, key prefix, method, route, status and duration", async () => {
    lines.length = 0;
    const ok = await t.call("POST", "/api/v1/customers", { body: { name: "Logged" } });
    const missing = await t.call("GET", "/api/v1/customers/cus_nope");
    const unauthenticated = await t.call("GET", "/api/v1/me", { key: null });
    const records = lines.map((l) => JSON.parse(l)).filter((r) => r.msg === "request");
    expect(records).toHaveLength(3);
    expect(records[0]).toMatchObject({
      level: "info",
      service: "api",
      request_id: ok.headers.get("request-id"),
      key_prefix: t.keys.live.slice(0, 12),
      method: "POST",
      route: "/api/v1/customers",
      status: 201,
    });
    expect(typeof records[0].duration_ms).toBe("number");
    expect(records[1]).toMatchObject({ request_id: missing.headers.get("request-id"), status: 404, route: "/api/v1/customers/:customer_ref" });
    expect(records[2]).toMatchObject({ request_id: unauthenticated.headers.get("request-id"), status: 401 });
    expect(records[2].key_prefix).toBeUndefined();
  });

  test("the key's secret and the Authorization header are never logged", async () => {
    lines.length = 0;
    await t.call("GET", "/api/v1/me");
    await t.call("GET", "/api/v1/me", { key: t.keys.revoked });
    await t.call("GET", "/api/v1/me", { headers: { authorization: `Bearer: ${t.keys.live}` }, key: null });
    const all = lines.join("\n");
    for (const key of [t.keys.live, t.keys.revoked]) expect(all).not.toContain(key.slice(12));
    expect(all.toLowerCase()).not.toContain("authorization");
    expect(all).not.toContain("Bearer");
  });

  test("secret-bearing fields are dropped even when a caller passes them by mistake", () => {
    const out: string[] = [];
    const logger = createLogger("info", {}, (line) => out.push(line)).child({ request_id: "req_x" });
    logger.warn("careless", { authorization: "Bearer svc_secret", key: "svc_secret", nested: { token: "xoxb-secret", kept: 1 } });
    const record = JSON.parse(out[0]!);
    expect(record).toMatchObject({ level: "warn", msg: "careless", request_id: "req_x", nested: { kept: 1 } });
    expect(out[0]).not.toContain("secret");
  });
});
