import { mkdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Browser, Page } from "playwright-core";

export const CHROMIUM = "/usr/bin/chromium";
export const SCREENSHOT_DIR = resolve(import.meta.dir, "../../.tmp/screenshots");

/**
 * Debian's Chromium, headless, through playwright-core (its own browser download cannot work
 * here). Bounded: a launch that hangs fails after 30 s.
 */
export async function launchChromium(): Promise<Browser> {
  const { chromium } = await import("playwright-core");
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    timeout: 30_000,
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
  });
}

const AXE_SOURCE = readFileSync(resolve(import.meta.dir, "../../node_modules/axe-core/axe.min.js"), "utf8");

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown[] }[];
}

/**
 * Runs axe-core (from node_modules, no network) in the page. Playwright's evaluate goes
 * through the DevTools protocol, which the page's Content-Security-Policy does not govern.
 */
export async function seriousAccessibilityViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE_SOURCE);
  // A string, so that this file needs no DOM types: it runs in the page.
  const violations = await page.evaluate<AxeViolation[]>('axe.run(document, { resultTypes: ["violations"] }).then((r) => r.violations)');
  return violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.impact} ${v.id}: ${v.help} (${v.nodes.map((n) => JSON.stringify(n.target)).join(", ")})`);
}

export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const path = join(SCREENSHOT_DIR, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}
