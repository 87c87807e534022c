import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { ERRORS } from "../../api/http/error-map.ts";
import { openApiPath } from "../../api/http/route.ts";
import { ERROR_CODES } from "../../shared/errors.ts";
import { errorTable } from "../../scripts/error-table.ts";
import { createTestApp } from "../support/test-app.ts";

const guide = readFileSync("docs/api.md", "utf8");
const readme = readFileSync("README.md", "utf8");

describe("the API guide (docs/api.md)", () => {
  test("its error table is the error map's, row for row (bun scripts/error-table.ts prints it)", () => {
    const start = guide.indexOf("<!-- error-table:start -->\n");
    const end = guide.indexOf("\n<!-- error-table:end -->");
    expect(start >= 0 && end > start).toBe(true);
    expect(guide.slice(start + "<!-- error-table:start -->\n".length, end)).toBe(errorTable());
    for (const code of ERROR_CODES) expect(errorTable()).toContain(`| \`${code}\` | ${ERRORS[code].status} | \`${ERRORS[code].type}\` |`);
  });

  test("names every endpoint of the route table", async () => {
    const t = await createTestApp();
    try {
      for (const route of t.routes) expect(guide).toContain(`\`${route.method} ${openApiPath(route.path)}\``);
    } finally {
      await t.close();
    }
  });

  test("the README links it, and neither reads anything outside the repository", () => {
    expect(readme).toContain("(docs/api.md)");
    for (const text of [guide, readme]) expect(text).not.toMatch(/\.\.\/shared|CONTRACT\.md|onboarding-api-spec/);
  });
});
