import { describe, expect, test } from "bun:test";
import { Registry } from "prom-client";
import { createRequestMetrics } from "../../api/admin/request-metrics.ts";

const line = (text: string, name: string) => text.split("\n").filter((l) => l.startsWith(name)).join("\n");

describe("request metrics", () => {
  test("a route's observers count into its series, by status", async () => {
    const registry = new Registry();
    const metrics = createRequestMetrics(registry);
    const read = metrics.forRoute("GET", "/api/v1/onboardings/:onboarding_ref");
    read(200, 0.0004);
    read(200, 0.003);
    read(404, 0.0002);
    metrics.forRoute("GET", "/api/v1/onboardings/:onboarding_ref")(200, 0.02);
    const text = await registry.metrics();
    expect(line(text, "http_requests_total")).toBe(
      ['http_requests_total{method="GET",route="/api/v1/onboardings/:onboarding_ref",status="200"} 3', 'http_requests_total{method="GET",route="/api/v1/onboardings/:onboarding_ref",status="404"} 1'].join("\n"),
    );
    expect(text).toContain('http_request_duration_seconds_bucket{method="GET",route="/api/v1/onboardings/:onboarding_ref",le="0.0005"} 2');
    expect(text).toContain('http_request_duration_seconds_count{method="GET",route="/api/v1/onboardings/:onboarding_ref"} 4');
  });

  test("after the registry's reset, a route's observer counts from zero again", async () => {
    const registry = new Registry();
    const metrics = createRequestMetrics(registry);
    const read = metrics.forRoute("GET", "/api/v1/customers");
    read(200, 0.001);
    read(200, 0.001);
    registry.resetMetrics();
    expect(line(await registry.metrics(), "http_requests_total")).toBe("");
    read(200, 0.001);
    expect(line(await registry.metrics(), "http_requests_total")).toBe('http_requests_total{method="GET",route="/api/v1/customers",status="200"} 1');
  });
});
