import type { Elysia } from "elysia";
import { Type, type TObject, type TSchema } from "@sinclair/typebox";
import { DomainError } from "../../shared/errors.ts";
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
import { readJsonBody } from "./body.ts";
import { errorResponse } from "./error-map.ts";
import { Reply, type Method, type RouteDef } from "./route.ts";
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
    if (name in out) throw new DomainError("invalid_type", `'${name}' was given more than once.`, name);
    const type = (schema?.properties[name] as TSchema | undefined)?.type;
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

const json = (status: number, body: string, headers: Record<string, string>) =>
  new Response(body, { status, headers: { "content-type": "application/json", ...headers } });

type Ctx = {
  request: Request;
  params: Record<string, string>;
  server: { requestIP(request: Request): { address: string } | null } | null;
};

/** An unexpected error as log fields: its message and stack stay in the log, never in a response. */
export function serializeError(error: unknown): Record<string, unknown> {
  return error instanceof Error ? { name: error.name, message: error.message, stack: error.stack } : { value: String(error) };
}

/**
 * Mounts every route behind one pipeline: the address's failure budget, authentication,
 * the key's rate limit and usage, path/query/body validation, then the handler (inside the
 * idempotency record's transaction when the request carries an Idempotency-Key). Every
 * response, errors included, carries the per-request headers gathered on the way.
 */
export function mountRoutes(app: Elysia<any, any, any, any, any, any, any>, routes: readonly RouteDef[], deps: RouterDeps): void {
  async function authenticate(request: Request, address: string): Promise<Actor> {
    deps.limits.assertAddressNotBlocked(address);
    try {
      return deps.authenticate(request.headers.get("authorization"));
    } catch (error) {
      const refusal = error instanceof DomainError ? await deps.limits.recordAuthFailure(address) : null;
      throw refusal ?? error;
    }
  }

  for (const route of routes) {
    const validate = compileRoute(route);
    const status = route.success.status;

    async function respond(ctx: Ctx, actor: Actor | undefined, headers: Record<string, string>, requestId: string): Promise<Response> {
      const params = validate.params ? validate.params(ctx.params) : undefined;
      const query = validate.query(readQuery(ctx.request.url, route.query as TObject | undefined));
      const rawBody = validate.body ? await readJsonBody(ctx.request) : undefined;
      const body = validate.body ? validate.body(rawBody) : undefined;
      const input = { actor: actor!, params, query, body, requestId } as never;

      const idempotencyKey = route.idempotent ? ctx.request.headers.get("idempotency-key") : null;
      if (idempotencyKey !== null && actor) {
        const key = validateIdempotencyKey(idempotencyKey);
        const pathname = new URL(ctx.request.url).pathname;
        const claim = deps.idempotency.begin(actor.keyId, key, requestFingerprint(route.method, pathname, rawBody));
        if (claim.kind === "replay") return json(claim.status, claim.body, { ...headers, "idempotent-replay": "true" });
        return json(status, deps.idempotency.execute(actor.keyId, key, status, () => route.handler(input)), headers);
      }

      const result = await route.handler(input);
      return result instanceof Reply ? json(result.status, JSON.stringify(result.body), headers) : json(status, JSON.stringify(result), headers);
    }

    const handle = async (ctx: Ctx): Promise<Response> => {
      const started = performance.now();
      const requestId = newId("req");
      const address = ctx.server?.requestIP(ctx.request)?.address ?? "unknown";
      const headers: Record<string, string> = { "request-id": requestId };
      const log = deps.logger.child({ request_id: requestId });
      let actor: Actor | undefined;
      let response: Response;
      try {
        if (route.authenticated) {
          actor = await authenticate(ctx.request, address);
          const limit = await deps.limits.forKey(actor);
          Object.assign(headers, limit.headers);
          deps.usage.record(actor.keyId, address === "unknown" ? null : address);
          if (limit.refusal) throw limit.refusal;
        }
        response = await respond(ctx, actor, headers, requestId);
      } catch (error) {
        response = errorResponse(
          error,
          (e) => log.error("unhandled error", { route: route.operationId, error: serializeError(e) }),
          headers,
        );
      }
      const durationMs = Math.round((performance.now() - started) * 1000) / 1000;
      deps.metrics.observe(route.method, route.path, response.status, durationMs / 1000);
      log.info("request", {
        key_prefix: actor?.keyPrefix,
        method: route.method,
        route: route.path,
        status: response.status,
        duration_ms: durationMs,
        address,
      });
      if (actor) {
        deps.activity.record({
          request_id: requestId,
          org_id: actor.orgId,
          key_id: actor.keyId,
          actor: actor.keyName,
          method: route.method,
          route: route.path,
          status: response.status,
          address: address === "unknown" ? null : address,
          duration_ms: durationMs,
          at: deps.nowMicros(),
        });
      }
      return response;
    };
    app.route(route.method, route.path, handle as never, { parse: "none" } as never);
  }
}

/** For a path no route answers: which methods would answer it (for 405 and `Allow`). */
export function methodsForPath(routes: readonly RouteDef[]): (pathname: string) => Method[] {
  const patterns = routes.map((r) => ({
    method: r.method,
    regex: new RegExp(`^${r.path.replace(/:[A-Za-z_]+/g, "[^/]+")}/?$`),
  }));
  return (pathname) => patterns.filter((p) => p.regex.test(pathname)).map((p) => p.method);
}
