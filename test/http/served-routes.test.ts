import { afterAll, describe, expect, test } from "bun:test";
import { createLogger } from "../../shared/logger.ts";
import { createTestApp, type TestApp } from "../support/test-app.ts";

/**
 * Over HTTP the API's routes are answered from Bun.serve's own route table (api/http/router.ts,
 * `NativeRoutes`), not through Elysia's per-request context as `app.handle` answers them, which
 * the other suites call. The two must answer alike, for what the routes answer and for what
 * falls through to Elysia (404, 405, OPTIONS).
 */
let t: TestApp;
let base: string;
afterAll(async () => {
  await t?.app.stop(true);
  await t?.close();
});

describe("the API's routes over HTTP", () => {
  test("answer as they do in process: successes, their headers, and every refusal", async () => {
    t = await createTestApp();
    t.app.listen({ hostname: "127.0.0.1", port: 0 });
    base = `http://127.0.0.1:${t.app.server!.port}`;
    const customer = await t.call("POST", "/api/v1/customers", { body: { name: "Served Co" } });
    const onboarding = await t.call("POST", "/api/v1/onboardings", { body: { customer_id: customer.body.id } });
    const json = { "content-type": "application/json" };
    const cases: [method: string, path: string, headers?: Record<string, string>, body?: string][] = [
      ["GET", `/api/v1/onboardings/${onboarding.body.id}`],
      ["PATCH", `/api/v1/onboardings/${onboarding.body.id}`, json, JSON.stringify({ health: "at_risk" })],
      ["PATCH", `/api/v1/onboardings/${onboarding.body.id}`, json, JSON.stringify({ health: "sideways" })],
      ["GET", "/api/v1/onboardings/onb_missing"],
      ["GET", "/api/v1/onboardings/onb_missing/"],
      ["GET", "/api/v1/customers?limit=abc"],
      ["POST", "/api/v1/customers", json, "{not json"],
      ["OPTIONS", "/api/v1/onboardings/onb_missing"],
      ["POST", "/api/v1/onboardings/onb_missing"],
      ["PUT", "/api/v1/customers"],
      ["GET", "/api/v1/no-such-route"],
      ["GET", "/api/v1/health"],
    ];
    const ids = (text: string) => text.replace(/req_[0-9A-Z]{26}/g, "req_…").replace(/"updated_at":"[^"]+"/g, "");
    for (const [method, path, headers, body] of cases) {
      const sent = { authorization: `Bearer ${t.keys.live}`, ...headers };
      const served = await fetch(`${base}${path}`, { method, headers: sent, body });
      const handled = await t.app.handle(new Request(`http://localhost${path}`, { method, headers: sent, body }));
      const [servedText, handledText] = [await served.text(), await handled.text()];
      expect({ method, path, status: served.status, body: ids(servedText) }).toEqual({ method, path, status: handled.status, body: ids(handledText) });
      for (const header of ["allow", "content-type", "x-ratelimit-limit"]) expect(served.headers.get(header)).toBe(handled.headers.get(header));
      expect(served.headers.get("request-id")).toMatch(/^req_/);
    }
  });

  test("what escapes the pipeline is answered as through Elysia: the contract's 500 with a request id, logged", async () => {
    // A log whose request lines cannot be written (stdout gone): the line is written after the
    // response is made, outside the pipeline's own error handling.
    const lines: string[] = [];
    const logger = createLogger("info", {}, (line) => {
      if (line.includes('"msg":"request"')) throw new Error("EPIPE: the log's pipe is closed");
      lines.push(line);
    });
    const failing = await createTestApp({ logger });
    try {
      failing.app.listen({ hostname: "127.0.0.1", port: 0 });
      const served = await fetch(`http://127.0.0.1:${failing.app.server!.port}/api/v1/customers`, { headers: { authorization: `Bearer ${failing.keys.live}` } });
      const handled = await failing.app.handle(new Request("http://localhost/api/v1/customers", { headers: { authorization: `Bearer ${failing.keys.live}` } }));
      for (const response of [served, handled]) {
        expect(response.status).toBe(500);
        expect(response.headers.get("content-type")).toContain("application/json");
        expect(response.headers.get("request-id")).toMatch(/^req_/);
        expect(((await response.json()) as { error: unknown }).error).toMatchObject({ type: "internal_error", code: "internal_error" });
      }
      expect(lines.filter((line) => line.includes("unhandled error") && line.includes("EPIPE"))).toHaveLength(2);
    } finally {
      await failing.app.stop(true);
      await failing.close();
    }
  });
});
