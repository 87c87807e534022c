/**
 * `bun bench/request-cost.ts [scenario…] [--count=N]`: the API's own CPU cost per request,
 * without a network, a load generator or other processes competing for the two cores. One
 * process builds the real app (createApp over a fresh SQLite file and a private Redis), then
 * calls `app.handle` N times in sequence per scenario and prints µs per request; beside it,
 * the same statements answered bare (prepared bun:sqlite + Response.json), as the baseline.
 * Run it under `bun --cpu-prof` to see where each microsecond goes: the profile holds nothing
 * but the request path.
 */
import { Database as Sqlite } from "bun:sqlite";
import { PHASES } from "../shared/domain.ts";
import { startInProcessApp } from "./lib/in-process.ts";

const args = process.argv.slice(2);
const count = Number(args.find((a) => a.startsWith("--count="))?.slice(8) ?? 20_000);
const ALL = ["read", "list", "create", "patch", "me", "health"] as const;
const chosen = args.filter((a) => !a.startsWith("--")) as (typeof ALL)[number][];
const scenarios = chosen.length ? chosen : ALL.filter((s) => s !== "me" && s !== "health");

const { built, keys, first, onboardingIds, file, close } = await startInProcessApp();

// The bare baseline: a second connection on the same file, the statements the baseline server runs.
const bare = new Sqlite(file, { strict: true });
const byId = bare.prepare("SELECT * FROM onboardings WHERE id = $id");
const page = bare.prepare(
  "SELECT * FROM onboardings WHERE org_id = $orgId AND deleted_at IS NULL AND phase = $phase AND created_at < $before ORDER BY created_at DESC LIMIT $limit",
);
const setPhase = bare.prepare("UPDATE onboardings SET phase = $phase, updated_at = $at WHERE id = $id");

let n = 0;
const nextKey = () => keys[n++ % keys.length]!;
const headers = (extra: Record<string, string> = {}) => ({ authorization: `Bearer ${nextKey().key}`, ...extra });
const base = "http://127.0.0.1:3000/api/v1/onboardings";

const service: Record<(typeof ALL)[number], (i: number) => Request> = {
  me: () => new Request("http://127.0.0.1:3000/api/v1/me", { headers: headers() }),
  health: () => new Request("http://127.0.0.1:3000/api/v1/health"),
  read: (i) => new Request(`${base}/${onboardingIds[i % onboardingIds.length]}`, { headers: headers() }),
  list: () => new Request(`${base}?phase=review&limit=20`, { headers: headers() }),
  create: (i) =>
    new Request(base, {
      method: "POST",
      headers: headers({ "content-type": "application/json", "idempotency-key": `cost-${Date.now()}-${i}` }),
      body: JSON.stringify({ customer_id: first.customerId, notes: "bench" }),
    }),
  patch: (i) =>
    new Request(`${base}/${onboardingIds[i % onboardingIds.length]}`, {
      method: "PATCH",
      headers: headers({ "content-type": "application/json" }),
      body: JSON.stringify({ phase: PHASES[i % PHASES.length] }),
    }),
};
const baseline: Record<(typeof ALL)[number], (i: number) => Promise<Response>> = {
  me: async () => Response.json({ object: "me" }),
  health: async () => Response.json({ status: "ok" }),
  read: async (i) => Response.json(byId.get({ id: onboardingIds[i % onboardingIds.length]! })),
  list: async () => {
    const rows = page.all({ orgId: first.orgId, phase: "review", before: Number.MAX_SAFE_INTEGER, limit: 21 });
    return Response.json({ object: "list", data: rows.slice(0, 20), has_more: rows.length > 20 });
  },
  create: async (i) => Response.json(byId.get({ id: onboardingIds[i % onboardingIds.length]! }), { status: 201 }), // see below
  patch: async (i) => {
    const id = onboardingIds[i % onboardingIds.length]!;
    setPhase.run({ id, phase: PHASES[i % PHASES.length]!, at: Date.now() * 1000 });
    return Response.json(byId.get({ id }));
  },
};

async function measure(label: string, once: (i: number) => Promise<Response>): Promise<number> {
  for (let i = 0; i < Math.min(2_000, count); i++) await (await once(i)).text(); // warm-up
  const started = performance.now();
  const cpu = process.cpuUsage();
  for (let i = 0; i < count; i++) {
    const response = await once(i);
    await response.text();
  }
  const used = process.cpuUsage(cpu);
  const wall = ((performance.now() - started) * 1000) / count;
  const micros = (used.user + used.system) / count;
  console.log(`${label.padEnd(24)} ${micros.toFixed(1).padStart(7)} µs CPU/request ${wall.toFixed(1).padStart(7)} µs wall`);
  return micros;
}

try {
  // The layers under every request: the framework alone (a 404), a route without a key, a route with one.
  const layers: [string, () => Request][] = [
    ["layer: no route (404)", () => new Request("http://127.0.0.1:3000/nowhere")],
    ["layer: public route", () => new Request("http://127.0.0.1:3000/api/v1/health")],
    ["layer: GET /me", () => new Request("http://127.0.0.1:3000/api/v1/me", { headers: headers() })],
  ];
  if (args.includes("--layers")) for (const [label, make] of layers) await measure(label, async () => built.app.handle(make()));
  for (const scenario of scenarios) {
    const s = await measure(`${scenario} service`, async (i) => {
      const response = await built.app.handle(service[scenario](i));
      if (response.status >= 300) throw new Error(`${scenario}: ${response.status} ${await response.text()}`);
      return response;
    });
    // Building the Request is the client's cost, not the service's: measured alone and subtracted.
    const r = await measure(`${scenario} request only`, async (i) => (service[scenario](i), new Response("")));
    if (scenario === "create") {
      console.log(`${"create service - req".padEnd(24)} ${(s - r).toFixed(1).padStart(7)} µs/request`);
      continue; // the bare insert is measured by the HTTP benchmark; in-process it only shows the read
    }
    const b = await measure(`${scenario} bare`, baseline[scenario]);
    console.log(`${`${scenario} ratio`.padEnd(24)} ${(b / (s - r)).toFixed(2).padStart(7)} (bare / (service - request))`);
  }
} finally {
  bare.close();
  await close();
}
