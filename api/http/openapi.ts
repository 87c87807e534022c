import type { TObject, TSchema } from "@sinclair/typebox";
import type { ErrorCode } from "../../shared/errors.ts";
import { ErrorObject } from "../common.schema.ts";
import { statusOf, typeOf } from "./error-map.ts";
import { MAX_BODY_BYTES } from "./body.ts";
import { openApiPath, type RouteDef } from "./route.ts";

type Json = Record<string, any>;

const ERROR_MESSAGES: Record<ErrorCode, string> = {
  invalid_json: "The request body is not valid JSON.",
  invalid_string: "Invalid datetime",
  invalid_type: "'limit' must be an integer.",
  invalid_enum_value: "'phase' must be one of: before_getting_started, program_design, review, program_buildout, internal_qa, launch, completed.",
  missing_field: "Missing required field 'name'.",
  unknown_field: "Unknown field 'nmae'.",
  too_small: "'limit' is too small: expected integer to be greater or equal to 1.",
  too_big: "'limit' is too big: expected integer to be less or equal to 100.",
  body_too_large: `The request body exceeds ${MAX_BODY_BYTES} bytes.`,
  unsupported_media_type: "Request bodies must be JSON sent with 'Content-Type: application/json'.",
  method_not_allowed: "PUT is not allowed on /api/v1/customers; allowed: GET, POST.",
  missing_api_key: "No API key provided. Send 'Authorization: Bearer <API key>'.",
  invalid_api_key: "Invalid API key provided: svc_4fT9qLm2…",
  malformed_authorization_header: "'Bearer' must be followed by a space, not a colon. Send 'Authorization: Bearer <API key>'.",
  api_key_revoked: "The API key svc_4fT9qLm2… has been revoked.",
  customer_not_found: "No such customer: '42'.",
  contact_not_found: "No such contact: '7'.",
  onboarding_not_found: "No such onboarding: '12'.",
  route_not_found: "No route matches GET /api/v1/customer.",
  slug_taken: "A customer with slug 'acme-corp' already exists.",
  idempotency_key_reused: "This Idempotency-Key was used with a different request.",
  idempotency_key_in_use: "A request with this Idempotency-Key is still being processed; retry shortly.",
  rate_limited: "Too many requests: 60 per 60 seconds for this key. Retry after the Retry-After header's seconds.",
  internal_error: "An internal error occurred. Quote the Request-Id header when reporting it.",
  service_unavailable: "The database is busy; retry after the Retry-After header's seconds.",
};

const FIELDS: Partial<Record<ErrorCode, string>> = {
  invalid_string: "cursor",
  invalid_type: "limit",
  invalid_enum_value: "phase",
  missing_field: "name",
  unknown_field: "nmae",
  too_small: "limit",
  too_big: "limit",
  slug_taken: "slug",
};

/** Errors every route of a kind can answer, on top of its own list. */
function commonErrors(route: RouteDef): ErrorCode[] {
  const codes: ErrorCode[] = ["internal_error", "service_unavailable"];
  if (route.authenticated) {
    codes.push("missing_api_key", "invalid_api_key", "malformed_authorization_header", "api_key_revoked", "rate_limited");
  }
  if (route.query || route.body) codes.push("invalid_type", "unknown_field", "invalid_string", "invalid_enum_value", "too_small", "too_big");
  if (route.body) codes.push("missing_field", "invalid_json", "body_too_large", "unsupported_media_type");
  if (route.idempotent) codes.push("idempotency_key_reused", "idempotency_key_in_use");
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

const rateHeaders = {
  "X-RateLimit-Limit": { description: "Requests allowed per 60-second window for this key.", schema: { type: "integer" } },
  "X-RateLimit-Remaining": { description: "Requests left in the current window.", schema: { type: "integer" } },
  "X-RateLimit-Reset": { description: "Seconds until the window frees a request.", schema: { type: "integer" } },
};
const requestIdHeader = { "Request-Id": { description: "Identifies this request in logs; quote it in reports.", schema: { type: "string" } } };

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
}

export function buildOpenApiDocument(routes: readonly RouteDef[], info: OpenApiInfo): Json {
  const { components, ref } = componentizer();
  const paths: Json = {};
  const errorRef = ref(ErrorObject);
  for (const route of routes) {
    const responses: Json = {
      [route.success.status]: {
        description: route.success.description,
        headers: route.authenticated ? { ...requestIdHeader, ...rateHeaders } : requestIdHeader,
        content: { "application/json": { schema: ref(route.success.schema), example: route.success.example } },
      },
    };
    const codes = [...new Set([...route.errors, ...commonErrors(route)])];
    for (const status of [...new Set(codes.map(statusOf))].sort()) {
      const atStatus = codes.filter((c) => statusOf(c) === status);
      responses[status] = {
        description: atStatus.map((c) => `\`${c}\``).join(", "),
        headers: status === 429 || atStatus.includes("idempotency_key_in_use")
          ? { ...requestIdHeader, "Retry-After": { description: "Whole seconds to wait before retrying.", schema: { type: "integer" } } }
          : requestIdHeader,
        content: {
          "application/json": {
            schema: errorRef,
            examples: Object.fromEntries(
              atStatus.map((code) => [
                code,
                {
                  summary: code,
                  value: { error: { type: typeOf(code), code, message: ERROR_MESSAGES[code], ...(FIELDS[code] ? { field: FIELDS[code] } : {}) } },
                },
              ]),
            ),
          },
        },
      };
    }
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
      ...(route.body ? { requestBody: { required: true, content: { "application/json": { schema: ref(route.body) } } } } : {}),
      responses,
    };
    if (operation.parameters.length === 0) delete operation.parameters;
    (paths[openApiPath(route.path)] ??= {})[route.method.toLowerCase()] = operation;
  }
  const tags = [...new Set(routes.map((r) => r.tag))];
  return {
    openapi: "3.1.0",
    info: {
      title: "Customer Onboarding Service API",
      version: info.version,
      description:
        "Server-to-server JSON API for a workspace's customers, their contacts and their onboardings. Authenticate with `Authorization: Bearer <API key>`; `svc_test_` keys change data but never trigger outbound effects.",
      contact: { name: "Customer Onboarding Service maintainers", url: "https://onboarding.example/support" },
      license: { name: "Proprietary", identifier: "LicenseRef-Proprietary" },
    },
    servers: [{ url: info.serverUrl, description: "This server" }],
    security: [{ bearerAuth: [] }],
    tags: tags.map((name) => ({ name, description: TAG_DESCRIPTIONS[name] ?? name })),
    paths,
    components: {
      schemas: components,
      securitySchemes: {
        bearerAuth: { type: "http", scheme: "bearer", description: "An API key: `svc_…` (live) or `svc_test_…` (test)." },
      },
    },
  };
}

const TAG_DESCRIPTIONS: Record<string, string> = {
  Customers: "The accounts being onboarded.",
  Contacts: "People attached to one customer.",
  Onboardings: "Engagements that move through ordered phases and carry a health state.",
  Meta: "Identity, health and this document.",
};
