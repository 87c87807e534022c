import type { Elysia } from "elysia";
import { Type, type TObject, type TSchema } from "@sinclair/typebox";
import { tryOrRetryWhileBusy } from "../../shared/db/busy.ts";
import type { Transaction } from "../../shared/db/database.ts";
import { isFlow, run, settle, use, type Flow, type MaybePromise } from "../../shared/db/flow.ts";
import { noteWriteSucceeded } from "../../shared/db/disk-full.ts";
import { withinDeadline } from "../../shared/db/postgres.ts";
import { DomainError, describeError, errorDetail, type ErrorCode } from "../../shared/errors.ts";
import type { ActivityEntry } from "../../shared/jobs/catalog.ts";
import { newId } from "../../shared/ids.ts";
import type { Logger } from "../../shared/logger.ts";
import type { ActivityRecorder } from "../activity/activity-recorder.ts";
import type { Metrics } from "../admin/metrics.ts";
import type { Actor } from "../auth/actor.ts";
import type { Authenticate } from "../auth/authenticate.ts";
import type { KeyUsage } from "../auth/key-usage.ts";
import { requestFingerprint } from "../idempotency/fingerprint.ts";
import { validateIdempotencyKey, type Idempotency } from "../idempotency/idempotency.ts";
import type { RequestLimits } from "../limits/request-limits.ts";
import { ClientDisconnected, readJsonBody } from "./body.ts";
import { errorResponse } from "./error-map.ts";
import { JsonText, Reply, type Method, type RouteDef } from "./route.ts";
import { createBatcher, type BatcherDeps, type BatcherOptions } from "./together.ts";
import type { BatchClaim } from "../idempotency/idempotency.store.ts";
import { compileValidator, type Validator } from "./validation.ts";

export interface RouterDeps {
  authenticate: Authenticate;
  limits: RequestLimits;
  usage: KeyUsage;
  idempotency: Idempotency;
  activity: ActivityRecorder;
  metrics: Metrics;
  logger: Logger;
  nowMicros: () => number;
  /**
   * A request's write transaction. It waits out another process's write lock itself, with
   * timers, and answers 503 past its bound (SQLite's group commit; PostgreSQL's row locks).
   */
  transaction: Transaction;
  /** What routes whose changes are made together need (api/http/together.ts); their transaction is `transaction`. */
  batches: Omit<BatcherDeps, "transaction"> & Pick<BatcherOptions, "gatherMs">;
  /** How long a read waits, without blocking, for a database busy in another process before answering 503. */
  busyTimeoutMs: number;
  /**
   * The longest a request waits for the database when its answer is asynchronous (PostgreSQL):
   * a partition leaves connections open with nobody answering, and no driver timeout covers it.
   */
  databaseDeadlineMs: number;
}

/** Routes without query parameters still refuse unknown ones. */
const NO_QUERY = Type.Object({}, { additionalProperties: false });

/**
 * Query strings carry text; a parameter documented as an integer is read as one when it
 * is written as one, and left as text otherwise so that validation names the fault.
 */
function readQuery(url: string, schema: TObject | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = Object.create(null);
  const start = url.indexOf("?");
  if (start < 0) return out;
  for (const [name, value] of new URLSearchParams(url.slice(start + 1))) {
    const property = schema?.properties[name] as (TSchema & { "x-repeatable"?: boolean }) | undefined;
    if (name in out) {
      // A parameter documented as repeatable (`type=a&type=b`) reads as its values comma-joined.
      if (property?.["x-repeatable"]) {
        out[name] = `${out[name]},${value}`;
        continue;
      }
      throw new DomainError("invalid_type", `'${name}' was given more than once.`, name);
    }
    const type = property?.type;
    out[name] = type === "integer" && /^-?\d{1,15}$/.test(value) ? Number(value) : value;
  }
  return out;
}

function compileRoute(route: RouteDef) {
  return {
    params: route.params ? compileValidator(route.params, "path") : null,
    query: compileValidator<Record<string, unknown>>(route.query ?? NO_QUERY, "query"),
    body: route.body ? compileValidator(route.body, "body") : null,
  } satisfies Record<string, Validator<unknown> | null>;
}

/** `headers` are the request's (`handle`), which start with the content type: not copied again for each response. */
const json = (status: number, body: string, headers: Record<string, string>) => new Response(body, { status, headers });

type Ctx = {
  request: Request;
  params: Record<string, string>;
  server: { requestIP(request: Request): { address: string } | null } | null;
};

/** A handler's answer as a flow: services answer flows; anything else is one step. */
const asFlow = (answer: unknown): Flow<unknown> => (isFlow(answer) ? answer : use(answer));

/**
 * Logs an error the response does not explain: at `error` what may be shown (a driver's error
 * by name and code only, never its SQL or parameters), and the whole of it, stack included,
 * at `debug`; both under the request id. A dependency's failure behind a 503 (`cause`) is logged
 * at `debug` only: the 503 itself is expected.
 */
export function logFailure(logger: Logger, requestId: string, route: string, error: unknown, unexpected: boolean): void {
  const cause = (error as { cause?: unknown } | null)?.cause;
  if (unexpected) logger.error("unhandled error", { request_id: requestId, route, error: describeError(error) });
  if (unexpected || cause !== undefined) logger.debug("error detail", { request_id: requestId, route, error: errorDetail(unexpected ? error : cause) });
}

/** The codes of a failed authentication: what the per-address budget counts. */
const AUTHENTICATION_FAILURES = new Set<ErrorCode>(["missing_api_key", "malformed_authorization_header", "invalid_api_key", "api_key_revoked"]);

/** What a client that hung up is answered with, for the log and metrics only (nginx's convention). */
const CLIENT_CLOSED_REQUEST = 499;

/**
 * Mounts every route behind one pipeline: authentication (an address's failed attempts
 * count against its own budget), the key's rate limit and usage, path/query/body
 * validation, then the handler. A call that changes data runs its handler and writes its
 * activity entry in one transaction (with the Idempotency-Key's claim and stored response,
 * when the request carries one: one commit), so a crash cannot keep the change and lose the
 * entry, nor leave the key claimed. On SQLite the write transactions of one event-loop turn
 * commit together (`deps.transaction`, the group commit), which waits out another process's
 * write lock with timers and answers 503 with Retry-After past `busyTimeoutMs`. Every
 * response, errors included, carries the per-request headers gathered on the way.
 *
 * Each route is mounted twice, on the same `handle`: on Elysia (`app.handle`, which tests and
 * in-process callers use, and its fallbacks: 404, 405, OPTIONS) and in the table this answers,
 * which `createApp` hands to Bun.serve (Elysia's `serve.routes`), so a request over HTTP reaches
 * `handle` straight from Bun's router (what matches no route's path and method, a trailing slash
 * or an unlisted method, still falls through to Elysia). Through Elysia every request paid for a context object
 * with a `server` getter, an `async` wrapper and its `await`, and a pass over the response:
 * about a twentieth of a SQLite read's CPU (bench/RESULTS.md, issue #26's twenty-fourth pass).
 */
export function mountRoutes(app: Elysia<any, any, any, any, any, any, any>, routes: readonly RouteDef[], deps: RouterDeps): NativeRoutes {
  const native: NativeRoutes = {};
  // Short pauses: a lock held by another process (the worker's writes) is usually gone within
  // a millisecond or two, and SQLite's own busy handler, which the worker uses, polls as often.
  const busy = { timeoutMs: deps.busyTimeoutMs, firstPauseMs: 1, maxPauseMs: 10 };
  /** SQLite answers synchronously (nothing to bound); a PostgreSQL answer gets the deadline, then 503. */
  const bounded = <T>(answer: MaybePromise<T>): MaybePromise<T> =>
    answer instanceof Promise ? withinDeadline(answer, deps.databaseDeadlineMs) : answer;

  /**
   * The calling key's actor: plain on SQLite (most requests never wait on anything), a promise
   * on PostgreSQL. A failure counts against the address's budget of failed authentications.
   */
  function authenticate(request: Request, address: string): MaybePromise<Actor> {
    try {
      const actor = bounded(deps.authenticate(request.headers.get("authorization")));
      return actor instanceof Promise ? actor.catch((error) => authenticationFailed(error, address)) : actor;
    } catch (error) {
      return authenticationFailed(error, address);
    }
  }

  /**
   * Only a key that is missing, malformed, unknown or revoked counts against the address: a
   * database or Redis that fails is not the client's fault, and counting it would turn a short
   * outage into a lockout of every client behind one address (a load balancer's).
   */
  async function authenticationFailed(error: unknown, address: string): Promise<never> {
    const refusal = error instanceof DomainError && AUTHENTICATION_FAILURES.has(error.code) ? await deps.limits.recordAuthFailure(address) : null;
    throw refusal ?? error;
  }

  for (const route of routes) {
    const validate = compileRoute(route);
    const status = route.success.status;
    const changesData = route.method !== "GET";
    const observe = deps.metrics.forRoute(route.method, route.path);

    type Answer = { response: Response; activityWritten: boolean };
    /** What a handler is given; `actor` is absent only on the public routes. */
    type Input = { actor: Actor | undefined; params: unknown; query: unknown; body: unknown; requestId: string; idempotencyKey: string | null };

    /**
     * Validates the path and query, reads and validates the body, then runs the handler.
     * `activity` makes the entry for a status; it is written with the change when there is one.
     * A read on SQLite answers plainly, without a turn of the event loop; what waits (a body, a
     * busy database, PostgreSQL, a change) answers a promise.
     */
    function respond(request: Request, pathParams: Record<string, string>, actor: Actor | undefined, headers: Record<string, string>, requestId: string, activity: (status: number) => ActivityEntry): MaybePromise<Answer> {
      const params = validate.params ? validate.params(pathParams) : undefined;
      const query = validate.query(readQuery(request.url, route.query as TObject | undefined));
      const idempotencyKey = route.idempotent ? request.headers.get("idempotency-key") : null;
      if (validate.body) return readJsonBody(request).then((rawBody) => act(request, { actor, params, query, body: validate.body!(rawBody), requestId, idempotencyKey }, rawBody, headers, activity));
      return act(request, { actor, params, query, body: undefined, requestId, idempotencyKey }, undefined, headers, activity);
    }

    const toResponse = (result: unknown, headers: Record<string, string>) =>
      result instanceof Reply
        ? json(result.status, JSON.stringify(result.body), headers)
        : json(status, result instanceof JsonText ? result.text : JSON.stringify(result), headers);

    function act(request: Request, input: Input, rawBody: unknown, headers: Record<string, string>, activity: (status: number) => ActivityEntry): MaybePromise<Answer> {
      const { actor } = input;
      if (!changesData || !actor) {
        const result = tryOrRetryWhileBusy(() => bounded(settle(route.handler(input as never))), busy);
        return result instanceof Promise ? result.then((r) => ({ response: toResponse(r, headers), activityWritten: false })) : { response: toResponse(result, headers), activityWritten: false };
      }
      return change(request, actor, input, rawBody, headers, activity);
    }

    const batcher = route.together ? createBatcher(route.together, status, { ...deps.batches, transaction: deps.transaction }, { gatherMs: deps.batches.gatherMs, onBatch: (made, alone) => deps.metrics.batch(route.path, made, alone) }) : null;
    /** The response of a request made in a batch with others: its change, entry included, committed there. */
    const madeWith = (body: string, headers: Record<string, string>): Answer => {
      noteWriteSucceeded();
      return { response: json(status, body, headers), activityWritten: true };
    };
    /** The response body of the request made in a batch with others, or null: it runs alone (below). */
    const madeTogether = (input: Input, claim: BatchClaim | null, activity: (status: number) => ActivityEntry): Promise<string | null> | null =>
      batcher && route.together!.accepts(input as never) ? batcher.submit({ input: input as never, claim, entry: activity }) : null;

    async function change(request: Request, actor: Actor, input: Input, rawBody: unknown, headers: Record<string, string>, activity: (status: number) => ActivityEntry): Promise<Answer> {
      let activityWritten = false;
      const changeWithActivity = function* (): Flow<unknown> {
        const { result, written } = yield* deps.activity.recordWithChange(
          () => asFlow(route.handler(input as never)),
          (result) => activity(result instanceof Reply ? result.status : status),
        );
        activityWritten = written;
        return result;
      };

      const { idempotencyKey } = input;
      if (idempotencyKey !== null) {
        const key = validateIdempotencyKey(idempotencyKey);
        const pathname = new URL(request.url).pathname;
        const fingerprint = requestFingerprint(route.method, pathname, rawBody);
        // In memory until the request ends, busy waits included: the claim in the database
        // commits only with the record, so until then nothing there tells this process's other
        // requests with the key to wait.
        const leave = deps.idempotency.enter(actor.keyId, key);
        try {
          const body = await madeTogether(input, { apiKeyId: actor.keyId, key, fingerprint }, activity);
          if (body !== null) return madeWith(body, headers);
          const outcome = await run(deps.idempotency.perform(actor.keyId, key, fingerprint, status, changeWithActivity));
          noteWriteSucceeded();
          // A replay wrote nothing (even if an attempt rolled back after the change ran): its entry is recorded like a read's.
          if (outcome.kind === "replay") return { response: json(outcome.status, outcome.body, { ...headers, "idempotent-replay": "true" }), activityWritten: false };
          return { response: json(status, outcome.body, headers), activityWritten };
        } finally {
          leave();
        }
      }

      const body = await madeTogether(input, null, activity);
      if (body !== null) return madeWith(body, headers);
      const result = await run(deps.transaction(changeWithActivity));
      noteWriteSucceeded();
      return { response: toResponse(result, headers), activityWritten };
    }

    // Destructured, not `ctx`: Elysia reads the handler's parameters to decide what to build
    // per request, and a whole `ctx` handed on makes it parse cookies and copy every response.
    const handle = async ({ request, params, server }: Ctx): Promise<Response> => {
      const started = performance.now();
      const requestId = newId("req");
      const address = server?.requestIP(request)?.address ?? "unknown";
      const headers: Record<string, string> = { "content-type": "application/json", "request-id": requestId };
      let actor: Actor | undefined;
      let response: Response;
      let activityWritten = false;
      const activity = (status: number): ActivityEntry => ({
        request_id: requestId,
        org_id: actor!.orgId,
        key_id: actor!.keyId,
        actor: actor!.keyName,
        method: route.method,
        route: route.path,
        status,
        address: address === "unknown" ? null : address,
        duration_ms: Math.round((performance.now() - started) * 1000) / 1000,
        at: deps.nowMicros(),
      });
      try {
        if (route.authenticated) {
          // Awaited only when they answer promises: on SQLite a read waits on nothing, and an
          // `await` of a plain value still costs a promise and a turn of the event loop.
          const authenticated = authenticate(request, address);
          actor = authenticated instanceof Promise ? await authenticated : authenticated;
          const decided = deps.limits.forKey(actor);
          const limit = decided instanceof Promise ? await decided : decided;
          Object.assign(headers, limit.headers);
          deps.usage.record(actor.keyId, address === "unknown" ? null : address);
          if (limit.refusal) throw limit.refusal;
        }
        const answered = respond(request, params, actor, headers, requestId, activity);
        ({ response, activityWritten } = answered instanceof Promise ? await answered : answered);
      } catch (error) {
        if (error instanceof ClientDisconnected) {
          deps.metrics.clientDisconnected(route.method, route.path);
          deps.logger.info("client disconnected", { request_id: requestId, route: route.path, address, detail: error.message });
          return new Response(null, { status: CLIENT_CLOSED_REQUEST, headers });
        }
        response = errorResponse(error, (e) => logFailure(deps.logger, requestId, route.operationId, e, true), headers);
        if (error instanceof DomainError) logFailure(deps.logger, requestId, route.operationId, error, false);
      }
      const durationMs = Math.round((performance.now() - started) * 1000) / 1000;
      observe(response.status, durationMs / 1000);
      // Checked first: the line's fields are an object built per request, for nothing when info is off.
      if (deps.logger.enabled("info")) {
        deps.logger.info("request", {
          request_id: requestId,
          key_prefix: actor?.keyPrefix,
          method: route.method,
          route: route.path,
          status: response.status,
          duration_ms: durationMs,
          address,
        });
      }
      if (actor && !activityWritten) deps.activity.record(activity(response.status));
      return response;
    };
    app.route(route.method, route.path, handle as never, { parse: "none" } as never);
    // What escapes `handle` (a log line that cannot be written, say) goes to Bun.serve's `error`, which `createApp` sets.
    (native[route.path] ??= {})[route.method] = (request, server) => handle({ request, params: request.params, server });
  }
  return native;
}

/** Bun.serve's route table of the API: each route's methods, answered by the pipeline straight from Bun (see `mountRoutes`). */
export type NativeRoutes = Record<string, Partial<Record<Method, (request: Request & { params: Record<string, string> }, server: Ctx["server"]) => Promise<Response>>>>;

/** For a path no route answers: which methods would answer it (for 405 and `Allow`). */
export function methodsForPath(routes: readonly Pick<RouteDef, "method" | "path">[]): (pathname: string) => Method[] {
  const patterns = routes.map((r) => ({
    method: r.method,
    regex: new RegExp(`^${r.path.replace(/:[A-Za-z_]+/g, "[^/]+")}/?$`),
  }));
  return (pathname) => patterns.filter((p) => p.regex.test(pathname)).map((p) => p.method);
}
