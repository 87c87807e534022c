import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { REDOC_CDN_LOGO } from "../../api/meta/docs-page.ts";
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
    expect(html).toContain('spec-url="/api/v1/docs/openapi.json"');
    expect(html).toContain('download-definition-url="/api/v1/openapi.json"'); // the download is the whole document
    expect((await get("/api/v1/openapi.json")).status).toBe(200);
  });

  test("renders the served document without its OPTIONS operations, which the document itself keeps", async () => {
    const served = (await (await get("/api/v1/openapi.json")).json()) as { paths: Record<string, Record<string, unknown>> };
    const reference = await get("/api/v1/docs/openapi.json");
    expect(reference.status).toBe(200);
    expect(reference.headers.get("content-type")).toBe("application/json");
    const rendered = (await reference.json()) as typeof served;
    expect(Object.keys(rendered.paths)).toEqual(Object.keys(served.paths));
    for (const [path, item] of Object.entries(served.paths)) {
      expect(item.options).toBeDefined();
      const { options: _options, ...others } = item;
      expect({ path, operations: rendered.paths[path] }).toEqual({ path, operations: others });
    }
    expect({ ...rendered, paths: null }).toEqual({ ...served, paths: null });
  });

  test("answers OPTIONS with Allow and another method with 405, like every API path", async () => {
    for (const path of ["/api/v1/docs", "/api/v1/docs/redoc.standalone.js", "/api/v1/docs/openapi.json"]) {
      const options = await t.app.handle(new Request(`http://localhost${path}`, { method: "OPTIONS" }));
      expect({ status: options.status, allow: options.headers.get("allow") }).toEqual({ status: 204, allow: "GET, OPTIONS" });
      const post = await t.app.handle(new Request(`http://localhost${path}`, { method: "POST" }));
      expect({ status: post.status, allow: post.headers.get("allow") }).toEqual({ status: 405, allow: "GET, OPTIONS" });
    }
  });

  test("serves Redoc's standalone bundle from the installed package, its one image from a CDN replaced", async () => {
    const bundle = await get("/api/v1/docs/redoc.standalone.js");
    expect(bundle.status).toBe(200);
    expect(bundle.headers.get("content-type")).toStartWith("text/javascript");
    const served = await bundle.text();
    const installed = readFileSync(Bun.resolveSync("redoc/bundles/redoc.standalone.js", import.meta.dir), "utf8");
    // The footer logo is the installed bundle's one load from another origin (a Redoc upgrade that moves it fails here).
    expect(installed.split(REDOC_CDN_LOGO).length).toBe(2);
    expect(served).not.toContain("cdn.redoc.ly");
    const [before, after] = installed.split(REDOC_CDN_LOGO) as [string, string];
    expect(served.startsWith(before) && served.endsWith(after)).toBe(true);
    expect(served.slice(before.length, served.length - after.length)).toStartWith("data:image/svg+xml,");
  });
});
