import type { Elysia } from "elysia";
import { Type, type TObject, type TSchema } from "@sinclair/typebox";
import { DomainError } from "../../shared/errors.ts";
import type { Logger } from "../../shared/logger.ts";
import type { Actor } from "../auth/actor.ts";
import type { Authenticate } from "../auth/authenticate.ts";
import { readJsonBody } from "./body.ts";
import { errorResponse } from "./error-map.ts";
import { Reply, type Method, type RouteDef } from "./route.ts";
import { compileValidator, type Validator } from "./validation.ts";

export interface RouterDeps {
  authenticate: Authenticate;
  logger: Logger;
}

/** What the pipeline knows about a request once it has been answered; for logs and usage. */
export interface Exchange {
  requestId: string;
  route: RouteDef;
  actor: Actor | undefined;
  status: number;
  durationMs: number;
}

const JSON_TYPE = { "content-type": "application/json" };
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

type Ctx = {
  request: Request;
  params: Record<string, string>;
  set: { headers: Record<string, string | number> };
};

export function mountRoutes(app: Elysia<any, any, any, any, any, any, any>, routes: readonly RouteDef[], deps: RouterDeps): void {
  for (const route of routes) {
    const validate = compileRoute(route);
    const handle = async (ctx: Ctx): Promise<Response> => {
      const started = performance.now();
      const requestId = String(ctx.set.headers["request-id"]);
      let actor: Actor | undefined;
      let response: Response;
      try {
        if (route.authenticated) actor = deps.authenticate(ctx.request.headers.get("authorization"));
        const params = validate.params ? validate.params(ctx.params) : undefined;
        const query = validate.query(readQuery(ctx.request.url, route.query as TObject | undefined));
        const body = validate.body ? validate.body(await readJsonBody(ctx.request)) : undefined;
        const result = await route.handler({ actor: actor!, params, query, body, requestId } as never);
        response = result instanceof Reply
          ? new Response(JSON.stringify(result.body), { status: result.status, headers: JSON_TYPE })
          : new Response(JSON.stringify(result), { status: route.success.status, headers: JSON_TYPE });
      } catch (error) {
        response = errorResponse(error, (e) => deps.logger.error("unhandled error", { request_id: requestId, route: route.operationId, error: describe(e) }));
      }
      deps.logger.info("request", {
        request_id: requestId,
        key_prefix: actor?.keyPrefix,
        method: route.method,
        route: route.path,
        status: response.status,
        duration_ms: Math.round((performance.now() - started) * 1000) / 1000,
      });
      return response;
    };
    app.route(route.method, route.path, handle as never, { parse: "none" } as never);
  }
}

export function describe(error: unknown): Record<string, unknown> {
  return error instanceof Error ? { name: error.name, message: error.message, stack: error.stack } : { value: String(error) };
}

/** For a path no route answers: which methods would answer it (for 405 and `Allow`). */
export function methodsForPath(routes: readonly RouteDef[]): (pathname: string) => Method[] {
  const patterns = routes.map((r) => ({
    method: r.method,
    regex: new RegExp(`^${r.path.replace(/:[A-Za-z_]+/g, "[^/]+")}/?$`),
  }));
  return (pathname) => patterns.filter((p) => p.regex.test(pathname)).map((p) => p.method);
}
