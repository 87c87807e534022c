/**
 * The API reference at /api/v1/docs in headless Chromium with every other origin cut off:
 * it must render the served OpenAPI document from the app's own bundle, with no request
 * leaving the app and no script or style refused by its Content-Security-Policy.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser } from "playwright-core";
import { launchChromium, screenshot } from "../support/browser.ts";
import { createTestApp, type TestApp } from "../support/test-app.ts";

let t: TestApp;
let browser: Browser;
let base: string;

beforeAll(async () => {
  t = await createTestApp();
  t.app.listen({ hostname: "127.0.0.1", port: 0, reusePort: false });
  base = `http://127.0.0.1:${t.app.server!.port}`;
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await t.app.stop();
  await t.close();
});

describe("the API reference in a browser, offline", () => {
  test("renders every operation of the document from the app's own origin", async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    const elsewhere: string[] = [];
    // No network but the app: anything for another origin is recorded and refused.
    await context.route("**/*", (route) => {
      const url = route.request().url();
      if (url.startsWith(`${base}/`) || url.startsWith("blob:") || url.startsWith("data:")) return route.continue();
      elsewhere.push(url);
      return route.abort();
    });
    const refusedByCsp: string[] = [];
    page.on("console", (message) => {
      if (/Content Security Policy/.test(message.text())) refusedByCsp.push(message.text());
    });
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(error.message));

    await page.goto(`${base}/api/v1/docs`);
    await page.getByRole("heading", { name: /Customer Onboarding Service API/ }).first().waitFor();
    await page.getByRole("heading", { name: t.routes.at(-1)!.summary }).first().waitFor();
    const headings = await page.getByRole("heading").allTextContents();
    for (const route of t.routes) expect(headings.map((h) => h.trim())).toContain(route.summary);
    await screenshot(page, "api-reference");

    expect(errors).toEqual([]);
    expect(elsewhere).toEqual([]);
    // The one thing the page refuses is Redoc's footer logo from its vendor's CDN (hidden on error).
    expect(refusedByCsp.filter((m) => !m.includes("cdn.redoc.ly/redoc/logo-mini.svg"))).toEqual([]);
    await context.close();
  });
});
