import { Elysia } from "elysia";
import type { Redis } from "ioredis";
import type { Clock } from "../shared/clock.ts";
import { isDatabaseBusy } from "../shared/db/busy.ts";
import { createGroupCommit } from "../shared/db/group-commit.ts";
import type { Database } from "../shared/db/database.ts";
import { run } from "../shared/db/flow.ts";
import { withinDeadline } from "../shared/db/postgres.ts";
import { diskFullRecently } from "../shared/db/disk-full.ts";
import { DomainError } from "../shared/errors.ts";
import { newId } from "../shared/ids.ts";
import type { Logger } from "../shared/logger.ts";
import { closeQueues, createQueues } from "../shared/jobs/queues.ts";
import { createActivityRecorder } from "./activity/activity-recorder.ts";
import { startActivityWriter } from "./activity/activity-writer.ts";
import { checkAdminAccess } from "./admin/admin-guard.ts";
import { adminArea } from "./admin-area/admin-area.routes.ts";
import { createMetrics } from "./admin/metrics.ts";
import { queueDashboard } from "./admin/queue-dashboard.ts";
import { createAuthenticator } from "./auth/authenticate.ts";
import { createKeyUsage } from "./auth/key-usage.ts";
import { createIdempotency } from "./idempotency/idempotency.ts";
import { createRateLimiter } from "./limits/rate-limiter.ts";
import { createRequestLimits, DEFAULT_RATE_LIMITS, type RateLimitSettings } from "./limits/request-limits.ts";
import { featureRoutes, featureTags, type ServiceDeps } from "./features.ts";
import { errorResponse } from "./http/error-map.ts";
import { buildOpenApiDocument } from "./http/openapi.ts";
import type { RouteDef } from "./http/route.ts";
import { logFailure, methodsForPath, mountRoutes, type NativeRoutes } from "./http/router.ts";
import { DOCS_BUNDLE_PATH, DOCS_DOCUMENT_PATH, DOCS_PATH, DOCS_PATHS, docsBundle, docsDocument, docsPage } from "./meta/docs-page.ts";
import { metaRoutes, type MetaDeps } from "./meta/meta.routes.ts";
import { createRelay } from "./outbox/relay.ts";
import { createApiStores } from "./stores.ts";
import { rulesFrom, type OutboundRules } from "../shared/webhooks/outbound-rules.ts";
import packageJson from "../package.json" with { type: "json" };

export interface AppInfrastructure {
  /** SQLite or PostgreSQL (shared/db/database.ts); the app chooses its stores by it. */
  database: Database;
  redis: Redis;
  clock: Clock;
  logger: Logger;
  /** Where the OpenAPI document says the API lives. */
  publicUrl: string;
  /** Prefix of this app's Redis keys (queues, rate-limit counters); one per deployment or test suite. */
  redisPrefix: string;
  rateLimits?: RateLimitSettings;
  /** Guards /metrics and /admin/queues; without it they answer 404. */
  adminToken?: string | null;
  /** How long a request waits, without blocking, for SQLite's write lock before it answers 503. */
  databaseBusyTimeoutMs?: number;
  /** The longest a request waits on Redis (rate limits) before the process limits on its own. */
  redisCommandTimeoutMs?: number;
  /** How long requests waiting for a batch of changes wait for those it answered (api/http/together.ts, `GATHER_MS`). */
  batchGatherMs?: number;
  /** An outbox row handed to Redis this long ago without a recorded outcome is checked (and re-sent if lost). */
  outboxReconcileAfterMs?: number;
  /** Seals workspace Slack tokens set in the admin area's settings page, and webhook secrets. */
  secretKey?: string | null;
  /** Where webhook endpoints may point (WEBHOOK_ALLOW_HTTP, WEBHOOK_ALLOW_PRIVATE_NETWORKS); the strict rules when absent. */
  webhookRules?: OutboundRules;
  /**
   * SQLite file: read calls' activity entries are written by a thread with a connection of its
   * own (api/activity/activity-writer.ts), not on the event loop. The API process sets it.
   */
  activityThread?: boolean;
}

const USAGE_FLUSH_MS = 1000;
const IDEMPOTENCY_PURGE_MS = 10 * 60 * 1000;

const REDIS_PROBE_TIMEOUT_MS = 1000;
/** PostgreSQL: a request's reads end within this (transactions have the same bound), so a 503 comes within 5 s. */
const DATABASE_DEADLINE_MS = 4500;

/**
 * For periodic housekeeping: a run that meets another process's write lock (SQLite) or a
 * database that is away (PostgreSQL) waits for the next.
 */
function housekeeping(work: () => unknown): void {
  try {
    const done = work();
    if (done instanceof Promise) done.catch(() => {});
  } catch (error) {
    if (!isDatabaseBusy(error)) throw error;
  }
}
/**
 * Queue commands (a relay batch of 500 jobs is one pipeline) get their own connection with
 * a longer bound than the request path's, so a busy moment is not mistaken for an outage.
 */
const QUEUE_COMMAND_TIMEOUT_MS = 5000;

async function redisAnswers(redis: Redis): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), REDIS_PROBE_TIMEOUT_MS)));
  try {
    return await Promise.race([redis.ping().then((r) => r === "PONG", () => false), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Every JSON endpoint, in the order the OpenAPI document lists them. */
export const routeTable = (services: ServiceDeps, meta: MetaDeps): RouteDef[] => [...metaRoutes(meta), ...featureRoutes(services)];

/** The OpenAPI document's tags: Meta's and each resource's. */
const TAGS = [{ name: "Meta", description: "Identity, health and this document." }, ...featureTags()];

/**
 * The composition root of the API process: it receives its infrastructure (so tests pass
 * private, real ones) and wires stores, services and routes. Nothing here knows about tests.
 */
export async function createApp(infra: AppInfrastructure) {
  const { database, clock, logger } = infra;
  const queueRedis = infra.redis.duplicate({ commandTimeout: QUEUE_COMMAND_TIMEOUT_MS });
  queueRedis.on("error", () => {}); // the request connection's listener reports outages once
  const queues = createQueues(queueRedis, infra.redisPrefix);
  // The outbox writer kicks the relay (only ever after `relay` below exists).
  const stores = createApiStores(database, () => void relay.kick());
  const relay = createRelay({
    store: stores.relayOutbox,
    queues,
    clock,
    logger,
    redisAnswers: () => redisAnswers(queueRedis),
    reconcileAfterMs: infra.outboxReconcileAfterMs,
    reconcileEveryMs: infra.outboxReconcileAfterMs === undefined ? undefined : Math.max(100, infra.outboxReconcileAfterMs / 3),
  });
  const services: ServiceDeps = {
    transaction: database.transaction,
    clock,
    nextSequence: stores.nextSequence,
    sequenceBlocks: stores.sequenceBlocks,
    workspaces: stores.workspaces,
    outbox: stores.outbox,
    webhookSettings: { rules: infra.webhookRules ?? rulesFrom({}), secretKey: infra.secretKey ?? null },
    ...stores.features,
  };

  const busyTimeoutMs = infra.databaseBusyTimeoutMs ?? 3000;
  // A request's write transaction: on SQLite, those that start in one event-loop turn commit
  // together (shared/db/group-commit.ts); PostgreSQL commits each on its own connection.
  const requestTransaction =
    database.engine === "sqlite" ? createGroupCommit(database.db, { busyTimeoutMs, firstPauseMs: 1, maxPauseMs: 10 }) : database.transaction;
  const limiter = createRateLimiter({ redis: infra.redis, keyPrefix: infra.redisPrefix, logger, commandTimeoutMs: infra.redisCommandTimeoutMs });
  const idempotency = createIdempotency(requestTransaction, stores.idempotency, clock);
  const activityWriter = infra.activityThread && database.engine === "sqlite" ? startActivityWriter(database.path, { logger }) : null;
  const usage = createKeyUsage(stores.apiKeys, clock, { writer: activityWriter, logger });
  const activity = createActivityRecorder({
    writer: activityWriter,
    transaction: requestTransaction,
    store: stores.activity,
    writes: database.writes,
    logger,
    nowMicros: () => clock.nowMicros(),
  });

  let document: unknown;
  const openApiDocument = () => (document ??= buildOpenApiDocument(routes, { version: packageJson.version, serverUrl: infra.publicUrl, tags: TAGS }));
  const routes: RouteDef[] = routeTable(services, {
    probes: {
      // An answer within a second, or "not ready": a partition leaves the query waiting.
      database: async () => withinDeadline(Promise.resolve(run(stores.health.answers())), 1000).catch(() => false),
      redis: () => redisAnswers(infra.redis),
      databaseFull: () => diskFullRecently(),
    },
    rateLimiterMode: () => limiter.mode(),
    openApiDocument,
  });

  relay.start();
  const timers = [
    setInterval(() => void usage.sweep(), USAGE_FLUSH_MS),
    setInterval(() => housekeeping(() => idempotency.purgeExpired()), IDEMPOTENCY_PURGE_MS),
  ];
  for (const timer of timers) timer.unref();

  const metrics = createMetrics({ store: stores.metrics, queues, relay, limiter, prefix: infra.redisPrefix, clock });
  // The reference page, its script and its document answer GET only, like the routes their 405 and OPTIONS.
  const allowedMethods = methodsForPath([...routes, ...DOCS_PATHS.map((path) => ({ method: "GET" as const, path }))]);
  const onUnexpected = (requestId: string) => (error: unknown) => logFailure(logger, requestId, "app", error, true);
  /** An error answered outside a route's pipeline: the contract's body under a request id, logged when unexpected. */
  const errorWithId = (error: unknown, requestId = newId("req"), headers: Record<string, string> = {}) =>
    errorResponse(error, onUnexpected(requestId), { "request-id": requestId, ...headers });

  const limits = createRequestLimits(limiter, infra.rateLimits ?? DEFAULT_RATE_LIMITS);

  // Operators' surface, behind ADMIN_TOKEN: the guard is local to this sub-app. Wrong tokens
  // count against the address's budget, like bad API keys; a right one is never refused.
  const admin = new Elysia()
    .onBeforeHandle(async ({ request, server }) => {
      let refusal = checkAdminAccess(infra.adminToken ?? null, request.headers.get("authorization"));
      if (!refusal) return;
      const requestId = newId("req");
      const headers: Record<string, string> = { "request-id": requestId };
      if (refusal.code === "invalid_api_key") {
        refusal = (await limits.recordAdminFailure(server?.requestIP(request)?.address ?? "unknown")) ?? refusal;
      }
      if (refusal.code === "missing_api_key" || refusal.code === "invalid_api_key") headers["www-authenticate"] = 'Basic realm="onboarding admin"';
      return errorResponse(refusal, onUnexpected(requestId), headers);
    })
    .get("/metrics", () => metrics.render())
    .use(queueDashboard(queues));

  // No global request hook: the pipeline sets Request-Id on its own responses, so Elysia has
  // nothing to merge into them; only what never reaches a route (404, 405) gets one here.
  // Filled by mountRoutes below; Bun.serve reads it at listen (Elysia merges `serve.routes` into its own table).
  const apiRoutes: NativeRoutes = {};
  // What escapes a route's pipeline there (a log line that cannot be written, say) is answered as
  // `onError` answers it on Elysia's path: the contract's 500, logged, with a request id.
  const app = new Elysia({ normalize: false, serve: { routes: apiRoutes, error: (error: unknown) => errorWithId(error) } as never })
    .onError(({ code, error, request }) => {
      const requestId = newId("req");
      const withId = (e: unknown, headers: Record<string, string> = {}) => errorWithId(e, requestId, headers);
      if (code === "NOT_FOUND") {
        const pathname = new URL(request.url).pathname;
        const methods = allowedMethods(pathname);
        if (methods.length > 0 && request.method === "OPTIONS") {
          return new Response(null, { status: 204, headers: { allow: [...methods, "OPTIONS"].join(", "), "request-id": requestId } });
        }
        if (methods.length > 0) {
          const allow = [...methods, "OPTIONS"].join(", ");
          return withId(
            new DomainError("method_not_allowed", `${request.method} is not allowed on ${pathname}; allowed: ${allow}.`),
            { allow },
          );
        }
        return withId(new DomainError("route_not_found", `No route matches ${request.method} ${pathname}.`));
      }
      if (code === "PARSE") return withId(new DomainError("invalid_json", "The request body is not valid JSON."));
      return withId(error);
    })
    .use(admin)
    // Workspace administrators' pages, with their own sessions (not ADMIN_TOKEN).
    .use(adminArea({ database, store: stores.adminArea, clock, logger, publicUrl: infra.publicUrl, secretKey: infra.secretKey ?? null, onboardingPages: stores.onboardingPages, services }))
    // The browsable reference: HTML, a script and the document it renders, so not in the JSON route table.
    .get(DOCS_PATH, () => docsPage(newId("req")))
    .get(DOCS_BUNDLE_PATH, () => docsBundle(newId("req")))
    .get(DOCS_DOCUMENT_PATH, () => docsDocument(newId("req"), openApiDocument() as object));

  Object.assign(apiRoutes, mountRoutes(app, routes, {
    authenticate: createAuthenticator(stores.apiKeys, database.watchCommits()),
    limits,
    usage,
    idempotency,
    activity,
    metrics,
    logger,
    nowMicros: () => clock.nowMicros(),
    transaction: requestTransaction,
    batches: { claims: stores.idempotency, activity: stores.activity, nowMicros: () => clock.nowMicros(), logger, gatherMs: infra.batchGatherMs },
    busyTimeoutMs,
    databaseDeadlineMs: DATABASE_DEADLINE_MS,
  }));

  return {
    app,
    routes,
    services,
    limiter,
    usage,
    idempotency,
    queues,
    relay,
    activity,
    /**
     * Stops background work and hands over what is buffered (activity entries, outbox rows,
     * key usage); call after the server has stopped taking requests.
     */
    async close(): Promise<void> {
      for (const timer of timers) clearInterval(timer);
      limiter.close();
      await activity.drain();
      await activityWriter?.stop();
      // Anything the thread gave back (it failed, or refused to the end) goes on this connection.
      if (activityWriter) await activity.drain();
      await relay.stop();
      await usage.flush();
      // Ended first: a queue still connecting (Redis away) then fails its start at once, while it listens.
      queueRedis.disconnect();
      await closeQueues(queues);
    },
  };
}
