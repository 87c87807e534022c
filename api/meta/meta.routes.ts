import type { Actor } from "../auth/actor.ts";
import { definePublicRoute, defineRoute, Reply, type RouteDef } from "../http/route.ts";
import { Health, Me, OpenApiDocument, Readiness } from "./meta.schema.ts";

export interface MetaDeps {
  /** Each probe resolves true when its dependency answers. */
  probes: { database: () => Promise<boolean>; redis: () => Promise<boolean>; /** A write was refused for space lately. */ databaseFull: () => boolean };
  openApiDocument: () => unknown;
  /** `per_process` while Redis is unreachable and each API process limits on its own. */
  rateLimiterMode: () => "redis" | "per_process";
}

export function identity(actor: Actor) {
  return {
    object: "me" as const,
    api_key: {
      id: actor.keyId,
      name: actor.keyName,
      prefix: actor.keyPrefix,
      scopes: ["read", "write"],
      rate_limit_tier: actor.tier,
      mode: actor.mode,
    },
    organization: { id: actor.orgId, slug: actor.orgSlug, name: actor.orgName },
    key_name: actor.keyName,
    key_prefix: actor.keyPrefix,
    org_id: actor.orgId,
    org_slug: actor.orgSlug,
    mode: actor.mode,
  };
}

const exampleMe = identity({
  orgId: "org_01JDQ3XW0A1B2C3D4E5F6G7H8J",
  orgSlug: "acme-onboarding",
  orgName: "Acme Onboarding Team",
  keyId: "key_01JDQ3Y1K2M3N4P5Q6R7S8T9V0",
  keyName: "crm-sync",
  keyPrefix: "svc_4fT9qLm2",
  mode: "live",
  tier: "default",
});

export const metaRoutes = (deps: MetaDeps): RouteDef[] => [
  defineRoute({
    method: "GET",
    path: "/api/v1/me",
    operationId: "getMe",
    summary: "Identify the calling key",
    description: "The key and its workspace. Counts as one request against the rate limit; no side effects.",
    tag: "Meta",
    success: { status: 200, description: "The calling key's identity.", schema: Me, example: exampleMe },
    errors: [],
    handler: ({ actor }) => identity(actor),
  }),
  definePublicRoute({
    method: "GET",
    path: "/api/v1/health",
    operationId: "getHealth",
    summary: "Liveness",
    description: "Answers while the process runs. Needs no key and is not rate limited.",
    tag: "Meta",
    success: { status: 200, description: "The process is alive.", schema: Health, example: { status: "ok" } },
    errors: [],
    handler: () => ({ status: "ok" }),
  }),
  definePublicRoute({
    method: "GET",
    path: "/api/v1/health/ready",
    operationId: "getReadiness",
    summary: "Readiness",
    description: "200 when the database and Redis answer, else 503 naming the one that failed (`full`: the database refuses writes for want of space). Needs no key.",
    tag: "Meta",
    success: {
      status: 200,
      description: "Ready to serve.",
      schema: Readiness,
      example: { status: "ready", checks: { database: "ok", redis: "ok" }, rate_limiter: "redis" },
    },
    otherResponses: [
      {
        status: 503,
        description: "Not ready: the check that failed says `error`.",
        schema: Readiness,
        example: { status: "unavailable", checks: { database: "ok", redis: "error" }, rate_limiter: "per_process" },
      },
    ],
    errors: [],
    handler: async () => {
      const [answers, redis] = await Promise.all([deps.probes.database(), deps.probes.redis()]);
      const full = deps.probes.databaseFull();
      const database = answers && !full;
      const body = {
        status: database && redis ? "ready" : "unavailable",
        checks: { database: full ? ("full" as const) : answers ? ("ok" as const) : ("error" as const), redis: redis ? "ok" : "error" },
        // With Redis silent every request falls back at once, whether or not one has yet.
        rate_limiter: redis ? deps.rateLimiterMode() : "per_process",
      };
      return database && redis ? body : new Reply(503, body);
    },
  }),
  definePublicRoute({
    method: "GET",
    path: "/api/v1/openapi.json",
    operationId: "getOpenApiDocument",
    summary: "OpenAPI document",
    description: "This API's OpenAPI 3.1 document, generated from the same schemas that validate requests. Needs no key.",
    tag: "Meta",
    success: { status: 200, description: "The OpenAPI document.", schema: OpenApiDocument, example: { openapi: "3.1.0" } },
    errors: [],
    handler: () => deps.openApiDocument(),
  }),
];
