/**
 * The API reference at /api/v1/docs in headless Chromium with every other origin cut off:
 * it must render the served OpenAPI document from the app's own bundle, with no request
 * leaving the app, nothing refused by its Content-Security-Policy and no console error; show
 * each request body's real example; show no OPTIONS operation; and pass axe.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { launchChromium, screenshot, seriousAccessibilityViolations } from "../support/browser.ts";
import { createTestApp, type TestApp } from "../support/test-app.ts";

let t: TestApp;
let browser: Browser;
let base: string;
let page: Page;
const elsewhere: string[] = [];
const consoleErrors: string[] = [];
const pageErrors: string[] = [];

beforeAll(async () => {
  t = await createTestApp();
  t.app.listen({ hostname: "127.0.0.1", port: 0, reusePort: false });
  base = `http://127.0.0.1:${t.app.server!.port}`;
  browser = await launchChromium();
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  // No network but the app: anything for another origin is recorded and refused.
  await context.route("**/*", (route) => {
    const url = route.request().url();
    if (url.startsWith(`${base}/`) || url.startsWith("blob:") || url.startsWith("data:")) return route.continue();
    elsewhere.push(url);
    return route.abort();
  });
  page = await context.newPage();
  page.setDefaultTimeout(15_000);
  // Every error the console shows: a CSP refusal, a failed load, a script's.
  page.on("console", (message) => {
    if (message.type() === "error") consoleErrors.push(message.text());
  });
  page.on("pageerror", (error) => pageErrors.push(error.message));
  await page.goto(`${base}/api/v1/docs`);
  await page.getByRole("heading", { name: /Customer Onboarding Service API/ }).first().waitFor();
  await page.getByRole("heading", { name: t.routes.at(-1)!.summary }).first().waitFor();
});

afterAll(async () => {
  await browser?.close();
  await t.app.stop();
  await t.close();
});

describe("the API reference in a browser, offline", () => {
  test("renders every operation of the document from the app's own origin, with no console error", async () => {
    const headings = (await page.getByRole("heading").allTextContents()).map((h) => h.trim());
    for (const route of t.routes) expect(headings).toContain(route.summary);
    await screenshot(page, "api-reference");
    expect(pageErrors).toEqual([]);
    expect(consoleErrors).toEqual([]);
    expect(elsewhere).toEqual([]);
  });

  test("shows no OPTIONS operation, in the menu or the body", async () => {
    const text = await page.evaluate<string>("document.body.innerText");
    expect(text).not.toContain("Methods of this path");
    // Redoc marks each operation's method with a class of its own, in the menu and beside each path.
    expect(await page.evaluate<number>('document.querySelectorAll(".operation-type.options, .http-verb.options").length')).toBe(0);
    expect(await page.evaluate<number>('document.querySelectorAll(".operation-type.get").length')).toBeGreaterThan(0);
  });

  test("shows each request body's own example, not one made up from its schema", async () => {
    const served = (await (await fetch(`${base}/api/v1/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { operationId: string; requestBody?: { content: { "application/json": { example?: Record<string, unknown> } } } }>>;
    };
    const withExamples = Object.values(served.paths)
      .flatMap((item) => Object.values(item))
      .filter((op) => op.requestBody !== undefined);
    expect(withExamples.length).toBeGreaterThan(5);
    for (const operation of withExamples) {
      const example = operation.requestBody!.content["application/json"].example;
      expect({ operation: operation.operationId, example: example === undefined ? "missing" : "given" }).toEqual({ operation: operation.operationId, example: "given" });
      const section = await page.evaluate<string>(`document.getElementById(${JSON.stringify(`operation/${operation.operationId}`)})?.innerText ?? ""`);
      expect({ operation: operation.operationId, requestSamples: section.includes("Request samples") }).toEqual({ operation: operation.operationId, requestSamples: true });
      // Every value of the example's first level is in the sample as written (JSON).
      for (const [field, value] of Object.entries(example!)) {
        const shown = typeof value === "object" && value !== null ? `"${field}":` : `"${field}": ${JSON.stringify(value)}`;
        expect({ operation: operation.operationId, shown, found: section.replace(/\s+/g, " ").includes(shown.replace(/\s+/g, " ")) }).toEqual({ operation: operation.operationId, shown, found: true });
      }
    }
  });

  test("passes axe with no serious or critical finding", async () => {
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
  });
});
