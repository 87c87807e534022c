/**
 * `bun bench/request-steps.ts [--count=N]`: what each step of a `GET /api/v1/onboardings/{id}`
 * costs on its own, beside the whole request and the bare baseline, all in this one process
 * (the real app over SQLite and a private Redis, bench/lib/in-process.ts). Each step runs N
 * times with the app's own objects, rotating over 400 keys as a load would, and prints wall
 * µs per call (median of three rounds); the activity entry, whose cost lands in later turns
 * (its flush, the relay), is measured as CPU per entry instead. The sum of the steps against
 * the whole request tells how much of the request's time is in the steps the contract asks
 * for (a key checked with exact revocation, a shared limit, an entry per call) and how much
 * is the framework's.
 */
import { Database as Sqlite } from "bun:sqlite";
import { Registry } from "prom-client";
import { createRequestMetrics } from "../api/admin/request-metrics.ts";
import { createAuthenticator } from "../api/auth/authenticate.ts";
import type { Actor } from "../api/auth/actor.ts";
import { createRequestLimits, DEFAULT_RATE_LIMITS } from "../api/limits/request-limits.ts";
import { createKeptShare, createRenderedResources } from "../api/http/rendered.ts";
import { getOnboarding } from "../api/onboardings/onboardings.service.ts";
import { createApiStores } from "../api/stores.ts";
import { hashApiKey } from "../shared/api-keys.ts";
import { run, runSync } from "../shared/db/flow.ts";
import { newId } from "../shared/ids.ts";
import { startInProcessApp } from "./lib/in-process.ts";

const count = Number(process.argv.find((a) => a.startsWith("--count="))?.slice(8) ?? 50_000);
const app = await startInProcessApp();
const { built, database, keys, first, onboardingIds, file } = app;
// Everything after the start runs inside the try: a failure still stops the private Redis.
try {
  await measure();
} finally {
  await app.close();
}

async function measure(): Promise<void> {
  const stores = createApiStores(database, () => {});
  const authenticate = createAuthenticator(stores.apiKeys, database.watchCommits());
  const limits = createRequestLimits(built.limiter, DEFAULT_RATE_LIMITS);
  const metrics = createRequestMetrics(new Registry());
  const reading = { ...built.services, rendered: createRenderedResources(), kept: createKeptShare() };
  const headers = keys.map((k) => `Bearer ${k.key}`);
  const actors = headers.map((h) => authenticate(h) as Actor);
  const bare = new Sqlite(file, { strict: true });
  const byId = bare.prepare("SELECT * FROM onboardings WHERE id = $id");
  const url = (i: number) => `http://127.0.0.1:3000/api/v1/onboardings/${onboardingIds[i % onboardingIds.length]}`;

  /** Median wall µs per call over three rounds of `count` calls; a call may answer a promise (awaited). */
  async function wall(once: (i: number) => unknown): Promise<number> {
    const rounds: number[] = [];
    let offset = 0;
    for (let round = 0; round < 3; round++) {
      // A turn for whatever is in flight (a background claim): a long synchronous loop must not
      // outlast the limiter's Redis timeout and send it into its per-process fallback.
      await Bun.sleep(20);
      const started = performance.now();
      for (let i = offset; i < offset + count; i++) {
        const answer = once(i);
        if (answer instanceof Promise) await answer;
      }
      rounds.push(((performance.now() - started) * 1000) / count);
      offset += count;
    }
    return rounds.sort((a, b) => a - b)[1]!;
  }

  /** CPU µs per activity entry, from `record` to its row: entries of 500 requests per turn, less the same turns without them. */
  async function activityCpu(): Promise<number> {
    // Ids made beforehand: a request makes its id once, and that is the "request id" row.
    const requestIds = Array.from({ length: 500 }, () => newId("req"));
    const entry = (i: number) => ({
      request_id: requestIds[i]!,
      org_id: first.orgId,
      key_id: actors[i % actors.length]!.keyId,
      actor: actors[i % actors.length]!.keyName,
      method: "GET",
      route: "/api/v1/onboardings/:onboarding_ref",
      status: 200,
      address: "127.0.0.1",
      duration_ms: 0.04,
      at: Date.now() * 1000,
    });
    const turns = Math.max(20, Math.round(count / 500));
    const cpuOf = async (entries: boolean) => {
      const cpu = process.cpuUsage();
      for (let t = 0; t < turns; t++) {
        if (entries) for (let i = 0; i < 500; i++) built.activity.record(entry(i));
        await Bun.sleep(2);
      }
      await built.activity.drain();
      await built.relay.kick();
      const used = process.cpuUsage(cpu);
      return used.user + used.system;
    };
    const samples: number[] = [];
    for (let round = 0; round < 3; round++) samples.push(((await cpuOf(true)) - (await cpuOf(false))) / (turns * 500));
    return samples.sort((a, b) => a - b)[1]!;
  }

  // A fresh bucket name per call site: each rotates over 400 keys of its own, so none meets its limit.
  let limitRound = 0;
  const limited = () => {
    const round = limitRound++;
    return (i: number) => limits.forKey({ ...actors[i % actors.length]!, keyId: `steps-${round}-${i % 400}` });
  };

  try {
    const whole = await wall(async (i) => {
      const response = await built.app.handle(new Request(url(i), { headers: { authorization: headers[i % headers.length]! } }));
      if (response.status !== 200) throw new Error(`GET one answered ${response.status}: ${await response.text()}`);
      return response.text();
    });
    const requestOnly = await wall((i) => new Request(url(i), { headers: { authorization: headers[i % headers.length]! } }));
    const health = await wall(async () => (await built.app.handle(new Request("http://127.0.0.1:3000/api/v1/health"))).text());
    const healthRequest = await wall(() => new Request("http://127.0.0.1:3000/api/v1/health"));
    const bareRead = await wall(async (i) => Response.json(byId.get({ id: onboardingIds[i % onboardingIds.length]! })).text());

    const requestId = await wall(() => newId("req"));
    // As the router counts: through the route's own observer.
    const observeRead = metrics.forRoute("GET", "/api/v1/onboardings/:onboarding_ref");
    const observe = await wall((i) => observeRead(200, i / 1e9));
    const response = await wall(() => new Response("{}", { status: 200, headers: { "content-type": "application/json", "request-id": "req_x", "x-ratelimit-limit": "600", "x-ratelimit-remaining": "9", "x-ratelimit-reset": "1" } }));
    const steps: [string, number, string][] = [
      ["request id", requestId, ""],
      ["authentication", await wall((i) => authenticate(headers[i % headers.length]!)), "the key checked on every request, with exact revocation"],
      ["  of which: revision read", await wall(() => run(stores.apiKeys.revision())), "the one-row read that makes revocation exact; on SQLite only after a commit (the WAL-index watch)"],
      ["  of which: SHA-256", await wall((i) => hashApiKey(keys[i % keys.length]!.key)), "the cache is keyed by the key's hash, never the key"],
      ["rate limit", await wall(limited()), "the shared limit; one Redis claim per 10 requests of a key, awaited here when nothing is in hand"],
      ["key usage", await wall((i) => built.usage.record(actors[i % actors.length]!.keyId, "127.0.0.1")), ""],
      ["metrics", observe, ""],
      ["the read (version, kept text)", await wall((i) => runSync(getOnboarding(reading, actors[0]!, onboardingIds[i % onboardingIds.length]!)).text), "as the route reads: the row's id and version, then its JSON text kept at that version (api/http/rendered.ts)"],
      ["response and headers", response, ""],
      ["activity entry (CPU)", await activityCpu(), "an entry per call: built and written into its table"],
      // A public route makes a request id, observes metrics and builds a response too: those are rows of their own.
      ["framework: a public route", health - healthRequest - requestId - observe - response, "Elysia's routing and context, the pipeline's frame, the health handler"],
    ];
    const row = (label: string, micros: number, note = "") => console.log(`| ${label} | ${micros.toFixed(2)} | ${note} |`);
    console.log(`\nGET one onboarding, in one process, ${count} calls a round (median of 3), µs:\n`);
    console.log("| step | µs | |\n|---|---|---|");
    for (const [label, micros, note] of steps) row(label, micros, note);
    const sum = steps.filter(([label]) => !label.startsWith(" ")).reduce((total, [, micros]) => total + micros, 0);
    row("**sum of the steps**", sum);
    row("**the whole request** (app.handle, less building the Request)", whole - requestOnly);
    row("bare baseline (prepared read + Response.json)", bareRead);
    console.log(`\nratio bare / whole: ${(bareRead / (whole - requestOnly)).toFixed(2)}`);
  } finally {
    bare.close();
  }
}
