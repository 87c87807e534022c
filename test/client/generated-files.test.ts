import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { TYPES_PATH, typesFor } from "../../client/scripts/generate-types.ts";
import { startApiProcess, type ApiProcess } from "./support/service.ts";

/**
 * What the client commits but does not write by hand must be what its sources make now: the
 * OpenAPI types (from the document a running API serves) and dist/ (what tsc makes of src/).
 * A failure here means: run the command in its message and commit the result.
 */
const CLIENT = join(import.meta.dir, "../../client");
let api: ApiProcess;
const temporary: string[] = [];
beforeAll(async () => {
  api = await startApiProcess();
});
afterAll(async () => {
  await api?.stop();
  for (const dir of temporary) rmSync(dir, { recursive: true, force: true });
});

/** Every file under `dir`, relative to it, sorted. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
    .sort();
}

describe("the client's generated files", () => {
  test("src/openapi.ts is what openapi-typescript makes of the served document (else: bun client/scripts/generate-types.ts)", async () => {
    const served = await (await fetch(`${api.base}/api/v1/openapi.json`)).json();
    const fresh = await typesFor(served);
    expect(readFileSync(TYPES_PATH, "utf8") === fresh ? "fresh" : "stale: run bun client/scripts/generate-types.ts").toBe("fresh");
  });

  test("dist/ is what tsc makes of src/ now, file for file (else: node_modules/.bin/tsc -p client)", () => {
    const out = mkdtempSync(join(tmpdir(), "client-dist-"));
    temporary.push(out);
    const tsc = Bun.spawnSync([join(import.meta.dir, "../../node_modules/.bin/tsc"), "-p", CLIENT, "--outDir", out], { stdout: "pipe", stderr: "pipe" });
    // A type error in the client fails here too: src/ is checked by its own, stricter-for-Node tsconfig.
    expect(tsc.stdout.toString() + tsc.stderr.toString()).toBe("");
    expect(tsc.exitCode).toBe(0);
    const dist = join(CLIENT, "dist");
    expect(filesUnder(dist)).toEqual(filesUnder(out));
    const stale = filesUnder(out).filter((file) => readFileSync(join(out, file), "utf8") !== readFileSync(join(dist, file), "utf8"));
    expect(stale.length === 0 ? "fresh" : `stale: ${stale.join(", ")}; run node_modules/.bin/tsc -p client`).toBe("fresh");
  });

  test("the package is publishable as it stands: exports, types, files, engines, and one version everywhere", async () => {
    const pkg = JSON.parse(readFileSync(join(CLIENT, "package.json"), "utf8"));
    expect(pkg.name).toBe("onboarding-client");
    expect(pkg.type).toBe("module");
    expect(pkg.engines).toEqual({ node: ">=20" });
    expect(pkg.dependencies ?? {}).toEqual({});
    for (const target of [pkg.main, pkg.types, pkg.exports["."].import, pkg.exports["."].types, pkg.exports["."].default]) expect(existsSync(join(CLIENT, target))).toBe(true);
    for (const listed of pkg.files) expect(existsSync(join(CLIENT, listed))).toBe(true);
    const { VERSION } = await import("../../client");
    expect(VERSION).toBe(pkg.version);
    expect(readFileSync(join(CLIENT, "CHANGELOG.md"), "utf8")).toContain(`## ${pkg.version}`);
    // Nothing in dist/ reaches outside the package (a path into the repository would not be published).
    for (const file of filesUnder(join(CLIENT, "dist"))) {
      const text = readFileSync(join(CLIENT, "dist", file), "utf8");
      for (const [, specifier] of text.matchAll(/from "([^"]+)"/g)) expect(specifier!.startsWith("./") || specifier!.startsWith("../") || specifier!.startsWith("node:") ? specifier : `outside: ${specifier}`).toBe(specifier!);
      expect(text).not.toContain("../../");
    }
  });
});
