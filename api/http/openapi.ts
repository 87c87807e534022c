import type { TObject, TSchema } from "@sinclair/typebox";
import type { ErrorCode } from "../../shared/errors.ts";
import { ERRORS, statusOf, typeOf } from "./error-map.ts";
import { ErrorObject } from "./error.schema.ts";
import { openApiPath, type RouteDef } from "./route.ts";

type Json = Record<string, any>;

/** The codes a schema's validation can answer with, read from the schema itself. */
function validationCodes(schema: TSchema | undefined, where: "path" | "query" | "body"): ErrorCode[] {
  const codes = new Set<ErrorCode>();
  const visit = (node: Json | undefined): void => {
    if (!node || typeof node !== "object") return;
    if (Array.isArray(node.anyOf)) return node.anyOf.forEach(visit);
    if (Array.isArray(node.enum)) codes.add("invalid_enum_value");
    if (node.type !== undefined) codes.add("invalid_type");
    if (node.format !== undefined || node.pattern !== undefined) codes.add("invalid_string");
    if (where !== "path" && (node.minimum !== undefined || node.minLength !== undefined || node.minProperties !== undefined)) codes.add("too_small");
    if (node.maximum !== undefined || node.maxLength !== undefined || node.maxProperties !== undefined) codes.add("too_big");
    if (node.type === "object") {
      if (node.additionalProperties === false) codes.add("unknown_field");
      if ((node.required ?? []).length > 0) codes.add("missing_field");
      Object.values((node.properties ?? {}) as Record<string, Json>).forEach(visit);
    }
  };
  if (schema) visit(JSON.parse(JSON.stringify(schema)) as Json);
  if (where === "path") codes.delete("invalid_type");
  return [...codes];
}

/** Errors every route of a kind can answer, on top of its own list. */
function commonErrors(route: RouteDef): ErrorCode[] {
  const codes: ErrorCode[] = ["internal_error"];
  if (route.authenticated) {
    codes.push("service_unavailable", "missing_api_key", "invalid_api_key", "malformed_authorization_header", "api_key_revoked", "rate_limited");
  }
  // Every route refuses unknown query parameters and a parameter given twice.
  codes.push("unknown_field", "invalid_type");
  codes.push(...validationCodes(route.params, "path"), ...validationCodes(route.query, "query"));
  if (route.body) {
    codes.push(...validationCodes(route.body, "body"));
    // Whatever the schema: text that would not survive storage, numbers beyond 2^53, deep nesting.
    codes.push("invalid_json", "invalid_string", "too_big", "body_too_large", "unsupported_media_type");
  }
  if (route.idempotent) codes.push("too_small", "too_big", "idempotency_key_reused", "idempotency_key_in_use");
  return codes;
}

/** TypeBox schemas are JSON Schema; named ones (`$id`) become shared components. */
function componentizer() {
  const components: Record<string, Json> = {};
  const visit = (node: unknown, isRoot: boolean): unknown => {
    if (Array.isArray(node)) return node.map((n) => visit(n, false));
    if (node === null || typeof node !== "object") return node;
    const { $id, ...rest } = node as Json;
    const converted = Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, k === "examples" || k === "example" || k === "default" ? v : visit(v, false)]));
    if (typeof $id === "string" && !isRoot) {
      components[$id] ??= converted;
      return { $ref: `#/components/schemas/${$id}` };
    }
    return converted;
  };
  const ref = (schema: TSchema) => visit(JSON.parse(JSON.stringify(schema)), false) as Json;
  return { components, ref };
}

const integerHeader = (description: string, required: boolean) => ({ description, required, schema: { type: "integer", minimum: 0 } });
const requestIdHeader = {
  "Request-Id": { description: "Identifies this request in logs; quote it in reports.", required: true, schema: { type: "string", pattern: "^req_" } },
};
/** On every response to a request that passed authentication: successes and errors alike. */
const rateHeaders = (required: boolean) => ({
  "X-RateLimit-Limit": integerHeader("Requests allowed per 60-second window for this key.", required),
  "X-RateLimit-Remaining": integerHeader("Requests left in the current window.", required),
  "X-RateLimit-Reset": integerHeader("Seconds until the window frees a request.", required),
});
const retryAfter = (required: boolean) => ({ "Retry-After": { ...integerHeader("Whole seconds to wait before retrying.", required), schema: { type: "integer", minimum: 1 } } });
const allowHeader = { Allow: { description: "The methods this path answers.", required: true, schema: { type: "string" } } };

/**
 * Which headers an answer of this status carries. Authentication failures (401) and the
 * address's failed-authentication limit (a 429 without a key's bucket) come before the key's
 * rate limit; a 500 or 503 may too.
 */
function errorHeaders(route: RouteDef, status: number, codes: readonly ErrorCode[]): Json {
  const afterLimits = route.authenticated && ![401, 429, 500, 503].includes(status);
  return {
    ...requestIdHeader,
    ...(route.authenticated && status !== 401 ? rateHeaders(afterLimits) : {}),
    ...(status === 429 || status === 503 ? retryAfter(true) : codes.includes("idempotency_key_in_use") ? retryAfter(false) : {}),
  };
}

const errorExample = (code: ErrorCode) => ({
  summary: code,
  value: { error: { type: typeOf(code), code, ...ERRORS[code].example } },
});

function parameters(schema: TSchema | undefined, where: "path" | "query"): Json[] {
  if (!schema) return [];
  const object = JSON.parse(JSON.stringify(schema)) as TObject;
  const required = new Set(object.required ?? []);
  return Object.entries(object.properties).map(([name, property]) => {
    const { description, ...rest } = property as Json;
    return { name, in: where, required: where === "path" || required.has(name), description, schema: rest };
  });
}

export interface OpenApiInfo {
  version: string;
  serverUrl: string;
  /** Each tag's description (the resources' own, from `api/features.ts`). */
  tags: readonly { name: string; description: string }[];
}

export function buildOpenApiDocument(routes: readonly RouteDef[], info: OpenApiInfo): Json {
  const { components, ref } = componentizer();
  const paths: Json = {};
  const errorRef = ref(ErrorObject);
  const methodsOf = new Map<string, string[]>();
  for (const route of routes) (methodsOf.get(route.path) ?? methodsOf.set(route.path, []).get(route.path)!).push(route.method);
  for (const route of routes) {
    const responses: Json = {
      [route.success.status]: {
        description: route.success.description,
        headers: {
          ...requestIdHeader,
          ...(route.authenticated ? rateHeaders(true) : {}),
          ...(route.idempotent
            ? { "Idempotent-Replay": { description: "`true` when this is the stored response of an earlier request with the same `Idempotency-Key`.", required: false, schema: { type: "string", enum: ["true"] } } }
            : {}),
        },
        content: { "application/json": { schema: ref(route.success.schema), example: route.success.example } },
      },
    };
    for (const other of route.otherResponses ?? []) {
      responses[other.status] = {
        description: other.description,
        headers: requestIdHeader,
        content: { "application/json": { schema: ref(other.schema), example: other.example } },
      };
    }
    const codes = [...new Set([...route.errors, ...commonErrors(route)])];
    for (const status of [...new Set(codes.map(statusOf))].sort()) {
      const atStatus = codes.filter((c) => statusOf(c) === status);
      responses[status] = {
        description: atStatus.map((c) => `\`${c}\``).join(", "),
        headers: errorHeaders(route, status, atStatus),
        content: {
          "application/json": { schema: errorRef, examples: Object.fromEntries(atStatus.map((code) => [code, errorExample(code)])) },
        },
      };
    }
    // Every path refuses the methods it does not answer (PUT everywhere, at least).
    responses[statusOf("method_not_allowed")] = {
      description: `\`method_not_allowed\`: this path answers ${[...methodsOf.get(route.path)!, "OPTIONS"].join(", ")} only; \`Allow\` lists them.`,
      headers: { ...requestIdHeader, ...allowHeader },
      content: { "application/json": { schema: errorRef, examples: { method_not_allowed: errorExample("method_not_allowed") } } },
    };
    const operation: Json = {
      operationId: route.operationId,
      summary: route.summary,
      description: route.description,
      tags: [route.tag],
      security: route.authenticated ? [{ bearerAuth: [] }] : [],
      parameters: [
        ...parameters(route.params, "path"),
        ...parameters(route.query, "query"),
        ...(route.idempotent
          ? [{
              name: "Idempotency-Key",
              in: "header",
              required: false,
              description: "Makes a retry safe: the same key and body replay the first success (with `Idempotent-Replay: true`) for 24 hours.",
              schema: { type: "string", minLength: 1, maxLength: 255 },
            }]
          : []),
      ],
      ...(route.body ? { requestBody: { required: true, content: { "application/json": { schema: ref(route.body), example: route.bodyExample } } } } : {}),
      responses,
    };
    if (operation.parameters.length === 0) delete operation.parameters;
    (paths[openApiPath(route.path)] ??= {})[route.method.toLowerCase()] = operation;
  }
  for (const [path, methods] of methodsOf) {
    const first = routes.find((r) => r.path === path)!;
    const name = path.replace(/^\/api\/v1\//, "").split(/[/_]/).filter((w) => w !== "").map((w) => w.replace(/^:/, "")).map((w) => w[0]!.toUpperCase() + w.slice(1)).join("");
    paths[openApiPath(path)].options = {
      operationId: `options${name}`,
      summary: "Methods of this path",
      description: "Answers 204 with `Allow`; needs no key and is not rate limited.",
      tags: [first.tag],
      security: [],
      ...(first.params ? { parameters: parameters(first.params, "path") } : {}),
      responses: {
        204: { description: `No body; \`Allow: ${[...methods, "OPTIONS"].join(", ")}\`.`, headers: { ...requestIdHeader, ...allowHeader } },
      },
    };
  }
  const tags = [...new Set(routes.map((r) => r.tag))];
  return {
    openapi: "3.1.0",
    info: {
      title: "Customer Onboarding Service API",
      version: info.version,
      description:
        "Server-to-server JSON API for a workspace's customers, their contacts and their onboardings. Authenticate with `Authorization: Bearer <API key>`; `svc_test_` keys change data but never trigger outbound effects.",
      // Every absolute link in the document starts at PUBLIC_URL.
      contact: { name: "Customer Onboarding Service maintainers", url: `${info.serverUrl}/api/v1/docs` },
      license: { name: "Proprietary", identifier: "LicenseRef-Proprietary" },
    },
    servers: [{ url: info.serverUrl, description: "This server" }],
    security: [{ bearerAuth: [] }],
    tags: tags.map((name) => ({ name, description: info.tags.find((t) => t.name === name)?.description ?? name })),
    paths,
    components: {
      schemas: components,
      securitySchemes: {
        bearerAuth: { type: "http", scheme: "bearer", description: "An API key: `svc_…` (live) or `svc_test_…` (test)." },
      },
    },
  };
}

