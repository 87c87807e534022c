/**
 * A server for `bench/read-floor.ts`: `GET /api/v1/onboardings/{id}` answered straight from
 * Bun.serve with the contract's response (the resource as the API returns it, `Request-Id` and
 * the three rate-limit headers) and only the per-read steps named in STEPS, each the service's
 * own component built by `createApp` on the same file and Redis:
 *
 * - `auth`: the key checked with exact revocation (api/auth/authenticate.ts);
 * - `limit`: the shared limit (api/limits/), its headers from the decision;
 * - `activity`: the call's activity entry (api/activity/activity-recorder.ts);
 * - `usage`: the key's usage bookkeeping (api/auth/key-usage.ts).
 *
 * With none of them, it is the contract's response served bare: what the read costs before the
 * contract's steps. Env: DATABASE_FILE, REDIS_URL, REDIS_PREFIX, PORT, STEPS (comma-separated),
 * ORG_ID (the workspace read from when `auth` is off).
 */
import { Redis } from "ioredis";
import { createApp } from "../../api/app.ts";
import { createAuthenticator } from "../../api/auth/authenticate.ts";
import type { Actor } from "../../api/auth/actor.ts";
import { createRequestLimits, DEFAULT_RATE_LIMITS } from "../../api/limits/request-limits.ts";
import { createKeptShare, createRenderedResources } from "../../api/http/rendered.ts";
import { getOnboarding } from "../../api/onboardings/onboardings.service.ts";
import { createApiStores } from "../../api/stores.ts";
import { systemClock } from "../../shared/clock.ts";
import { openDatabase } from "../../shared/db/client.ts";
import { sqliteDatabase } from "../../shared/db/database.ts";
import { runSync } from "../../shared/db/flow.ts";
import { newId } from "../../shared/ids.ts";
import { createLogger } from "../../shared/logger.ts";

const steps = new Set((process.env.STEPS ?? "").split(",").filter(Boolean));
const database = sqliteDatabase(openDatabase(process.env.DATABASE_FILE!, { busyTimeoutMs: 0 }));
const redis = new Redis(process.env.REDIS_URL!, { maxRetriesPerRequest: 1, enableOfflineQueue: false, enableAutoPipelining: true });
const built = await createApp({ database, redis, clock: systemClock, logger: createLogger("warn"), publicUrl: "http://127.0.0.1", redisPrefix: process.env.REDIS_PREFIX ?? "floor", rateLimits: DEFAULT_RATE_LIMITS, activityThread: true });
const authenticate = createAuthenticator(createApiStores(database, () => {}).apiKeys, database.watchCommits());
const limits = createRequestLimits(built.limiter, DEFAULT_RATE_LIMITS);
const route = "/api/v1/onboardings/:onboarding_ref";
/** The read as the route makes it: from texts rendered earlier (api/http/rendered.ts). */
const reading = { ...built.services, rendered: createRenderedResources(), kept: createKeptShare() };
/** The workspace read from without `auth`; its limit headers are constant without `limit`. */
const anonymous = { orgId: process.env.ORG_ID!, keyId: "key_floor", keyName: "floor", tier: "paid" } as Actor;
const FIXED_LIMIT_HEADERS = { "x-ratelimit-limit": "600", "x-ratelimit-remaining": "599", "x-ratelimit-reset": "0" };

function read(request: Bun.BunRequest<typeof route>, server: Bun.Server<undefined>): Response | Promise<Response> {
  const started = performance.now();
  const requestId = newId("req");
  const address = server.requestIP(request)?.address ?? null;
  const actor = steps.has("auth") ? (authenticate(request.headers.get("authorization")) as Actor) : anonymous;
  const answer = (limitHeaders: Record<string, string>): Response => {
    if (steps.has("usage")) built.usage.record(actor.keyId, address);
    const body = runSync(getOnboarding(reading, actor, request.params.onboarding_ref)).text;
    if (steps.has("activity")) {
      built.activity.record({ request_id: requestId, org_id: actor.orgId, key_id: actor.keyId, actor: actor.keyName, method: "GET", route, status: 200, address, duration_ms: performance.now() - started, at: systemClock.nowMicros() });
    }
    return new Response(body, { headers: { "content-type": "application/json", "request-id": requestId, ...limitHeaders } });
  };
  if (!steps.has("limit")) return answer(FIXED_LIMIT_HEADERS);
  const decided = limits.forKey(actor);
  return decided instanceof Promise ? decided.then((limit) => answer(limit.headers)) : answer(decided.headers);
}

const server = Bun.serve({ hostname: "127.0.0.1", port: Number(process.env.PORT), reusePort: false, routes: { [route]: { GET: read } }, fetch: () => new Response(null, { status: 404 }) }); // any other path: 404 (what the harness waits for)
const stop = async () => {
  await server.stop();
  await built.close();
  redis.disconnect();
  database.close();
  process.exit(0);
};
process.on("SIGTERM", () => void stop());
process.on("SIGINT", () => void stop());
