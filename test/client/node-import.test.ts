import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { signatureHeader } from "../../shared/webhooks/signature.ts";
import { startApiProcess, type ApiProcess } from "./support/service.ts";

/**
 * The client in Node.js 20, as published: `node` runs node-client.mjs, which imports the
 * package by name (`onboarding-client`, resolved through the root's devDependency link and
 * the package's `exports`) and by path (`client/dist/index.js`), against a real API process.
 */
let api: ApiProcess;
beforeAll(async () => {
  api = await startApiProcess();
});
afterAll(async () => {
  await api?.stop();
});

/** The system's Node.js: the test is about Node, so Bun's `node` shim would prove nothing. */
const node = Bun.which("node", { PATH: "/usr/local/bin:/usr/bin:/bin" }) ?? "node";

describe("the client in Node.js", () => {
  test("imports by package name and by path, calls the API, pages, maps errors and verifies a webhook", async () => {
    const body = JSON.stringify({ object: "event", id: "evt_node", type: "customer.created", data: { object: { object: "customer", id: "cus_node", name: "Node Co" } } });
    const secret = `whsec_${Buffer.from("n".repeat(24)).toString("base64")}`;
    const timestamp = Math.floor(Date.now() / 1000);
    const headers = { "webhook-id": "evt_node", "webhook-timestamp": String(timestamp), "webhook-signature": signatureHeader([secret], "evt_node", timestamp, body) };

    const child = Bun.spawn([node, join(import.meta.dir, "node-client.mjs")], {
      cwd: join(import.meta.dir, "../.."),
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", BASE_URL: api.base, API_KEY: api.key, DELIVERY: JSON.stringify({ body, headers, secret }) },
      stdout: "pipe",
      stderr: "pipe",
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
    const [out, err, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
    clearTimeout(timer);
    expect(err).toBe("");
    expect(code).toBe(0);

    const result = JSON.parse(out.trim());
    expect(result.runtime).toMatch(/^node v(2\d|[3-9]\d)\./);
    expect(result.samePackage).toBe(true);
    expect(result.org).toBe("acme");
    expect(result.listed).toEqual([...result.made].reverse());
    expect(result.missing).toMatchObject({ status: 404, code: "customer_not_found" });
    expect(result.missing.requestId).toMatch(/^req_/);
    expect(result.event).toEqual({ id: "evt_node", type: "customer.created" });
    expect(result.tampered).toBe("invalid_signature");
  });

  test("CommonJS: require(\"./client\") from the repository root (Node.js 20.19 and later load the ES module)", async () => {
    const script = `require("./client").VERSION && new (require("./client").OnboardingClient)({ apiKey: process.env.API_KEY, baseUrl: process.env.BASE_URL }).me().then((me) => console.log(me.org_slug))`;
    const child = Bun.spawn([node, "-e", script], { cwd: join(import.meta.dir, "../.."), env: { PATH: process.env.PATH ?? "/usr/bin:/bin", BASE_URL: api.base, API_KEY: api.key }, stdout: "pipe", stderr: "pipe" });
    const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
    const [out, err, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
    clearTimeout(timer);
    expect({ out: out.trim(), err, code }).toEqual({ out: "acme", err: "", code: 0 });
  });
});
