import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { createTestApp, type TestApp } from "../support/test-app.ts";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const get = (path: string) => t.app.handle(new Request(`http://localhost${path}`));

describe("the API reference at /api/v1/docs", () => {
  test("is a page that loads only this app's script and this app's document, under a strict CSP", async () => {
    const page = await get("/api/v1/docs");
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(page.headers.get("request-id")).toMatch(/^req_/);
    const csp = page.headers.get("content-security-policy")!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toMatch(/unsafe-eval|https?:/);
    const html = await page.text();
    expect(html).not.toMatch(/https?:\/\//); // nothing from another origin: works offline
    expect(html).not.toMatch(/<script>(?!<\/script>)|<script[^>]*>[^<]+<\/script>/); // no inline script
    const scripts = [...html.matchAll(/<script src="([^"]+)"/g)].map((m) => m[1]!);
    expect(scripts).toEqual(["/api/v1/docs/redoc.standalone.js"]);
    expect(html).toContain('spec-url="/api/v1/openapi.json"');
    expect((await get("/api/v1/openapi.json")).status).toBe(200);
  });

  test("answers OPTIONS with Allow and another method with 405, like every API path", async () => {
    for (const path of ["/api/v1/docs", "/api/v1/docs/redoc.standalone.js"]) {
      const options = await t.app.handle(new Request(`http://localhost${path}`, { method: "OPTIONS" }));
      expect({ status: options.status, allow: options.headers.get("allow") }).toEqual({ status: 204, allow: "GET, OPTIONS" });
      const post = await t.app.handle(new Request(`http://localhost${path}`, { method: "POST" }));
      expect({ status: post.status, allow: post.headers.get("allow") }).toEqual({ status: 405, allow: "GET, OPTIONS" });
    }
  });

  test("serves Redoc's standalone bundle from the installed package", async () => {
    const bundle = await get("/api/v1/docs/redoc.standalone.js");
    expect(bundle.status).toBe(200);
    expect(bundle.headers.get("content-type")).toStartWith("text/javascript");
    const served = await bundle.text();
    const installed = readFileSync(Bun.resolveSync("redoc/bundles/redoc.standalone.js", import.meta.dir), "utf8");
    expect(served.length).toBe(installed.length);
    expect(served === installed).toBe(true);
  });
});
