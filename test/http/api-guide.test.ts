import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { ERRORS } from "../../api/http/error-map.ts";
import { openApiPath } from "../../api/http/route.ts";
import { ERROR_CODES } from "../../shared/errors.ts";
import { errorTable } from "../../scripts/error-table.ts";
import { routeTable } from "../../api/app.ts";
import type { ServiceDeps } from "../../api/features.ts";
import type { MetaDeps } from "../../api/meta/meta.routes.ts";

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

  test("names every endpoint of the route table", () => {
    // The table only: defining routes touches none of their dependencies.
    const routes = routeTable({} as ServiceDeps, {} as MetaDeps);
    expect(routes.length).toBeGreaterThan(15);
    for (const route of routes) expect(guide).toContain(`\`${route.method} ${openApiPath(route.path)}\``);
  });

  test("the README links it, and neither reads anything outside the repository", () => {
    expect(readme).toContain("(docs/api.md)");
    for (const text of [guide, readme]) expect(text).not.toMatch(/\.\.\/shared|CONTRACT\.md|onboarding-api-spec/);
  });
});
