import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Ajv2020, { type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { Redis } from "ioredis";
import { createApp } from "../../api/app.ts";
import { ERRORS } from "../../api/http/error-map.ts";
import { openApiPath, type RouteDef } from "../../api/http/route.ts";
import { requestFingerprint } from "../../api/idempotency/fingerprint.ts";
import { freePort } from "../../scripts/private-redis.ts";
import { systemClock } from "../../shared/clock.ts";
import { ERROR_CODES, type ErrorCode } from "../../shared/errors.ts";
import { silentLogger } from "../../shared/logger.ts";
import { run } from "../../shared/db/flow.ts";
import { createApiKey, createWorkspace } from "../../shared/workspaces.ts";
import { createTestApp, freshTestDatabase, uniquePrefix, type TestApp } from "../support/test-app.ts";

/**
 * Drives every route through its success and error cases and checks each real response
 * (status, headers, body) against the served OpenAPI document with Ajv, so the document
 * cannot fall behind the code. Bad inputs are derived from each route's own schemas.
 */

type Json = Record<string, any>;
interface Sent {
  status: number;
  headers: Headers;
  text: string;
}

let t: TestApp;
let doc: Json;
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
const compiled = new Map<string, ValidateFunction>();
/** Every error body seen, per code, to check the documented examples against. */
const seen = new Map<string, Set<string>>();
let checked = 0;

/** The service's own headers: when a response carries one, the document must list it there. */
const SERVICE_HEADERS = ["request-id", "x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset", "retry-after", "idempotent-replay", "allow"];

function validatorFor(schema: Json): ValidateFunction {
  const source = JSON.stringify(schema).replaceAll('"#/components/', '"openapi#/components/');
  let validate = compiled.get(source);
  if (!validate) compiled.set(source, (validate = ajv.compile(JSON.parse(source))));
  return validate;
}

function check(route: RouteDef, label: string, response: Sent, method = route.method.toLowerCase()): void {
  checked++;
  const where = `${route.method} ${route.path} [${label}] → ${response.status}`;
  const operation = doc.paths[openApiPath(route.path)]?.[method];
  expect(operation ? where : `${where}: no operation`).toBe(where);
  const documented = operation.responses[String(response.status)];
  expect(documented ? where : `${where}: status not documented`).toBe(where);

  const headers: Record<string, Json> = Object.fromEntries(Object.entries(documented.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v as Json]));
  for (const name of SERVICE_HEADERS) {
    if (response.headers.has(name)) expect(`${where}: ${name} ${name in headers ? "documented" : "NOT documented"}`).toBe(`${where}: ${name} documented`);
  }
  for (const [name, header] of Object.entries(headers)) {
    const value = response.headers.get(name);
    if (header.required) expect(`${where}: ${name} ${value === null ? "missing" : "present"}`).toBe(`${where}: ${name} present`);
    if (value !== null) {
      const typed = header.schema?.type === "integer" ? Number(value) : value;
      const validate = validatorFor(header.schema ?? {});
      expect(`${where}: ${name}=${value} ${validate(typed) ? "ok" : ajv.errorsText(validate.errors)}`).toBe(`${where}: ${name}=${value} ok`);
    }
  }

  if (!documented.content) {
    expect(`${where}: body '${response.text}'`).toBe(`${where}: body ''`);
    return;
  }
  expect(response.headers.get("content-type")).toStartWith("application/json");
  const body = JSON.parse(response.text);
  const validate = validatorFor(documented.content["application/json"].schema);
  expect(`${where}: ${validate(body) ? "valid" : ajv.errorsText(validate.errors)}`).toBe(`${where}: valid`);
  if (response.status >= 400 && body.error) {
    const code = body.error.code as string;
    const examples = documented.content["application/json"].examples ?? {};
    expect(`${where}: ${code} ${code in examples ? "documented" : "NOT documented"}`).toBe(`${where}: ${code} documented`);
    const bucket = seen.get(code) ?? seen.set(code, new Set()).get(code)!;
    bucket.add(shape(body.error));
  }
}

/** Messages name ids, numbers and key prefixes that differ per run; the wording must not. */
const shape = (error: { message: string; field?: string }) =>
  JSON.stringify({ message: error.message.replace(/svc_(test_)?[0-9A-Za-z]+/g, "svc_…").replace(/\d+/g, "N"), field: error.field ?? null });

async function send(method: string, path: string, options: { body?: string; key?: string | null; headers?: Record<string, string>; app?: TestApp["app"] } = {}): Promise<Sent> {
  const headers: Record<string, string> = { ...options.headers };
  const key = options.key === undefined ? t.keys.live : options.key;
  if (key !== null) headers.authorization ??= `Bearer ${key}`;
  if (options.body !== undefined) headers["content-type"] ??= "application/json";
  const response = await (options.app ?? t.app).handle(new Request(`http://localhost${path}`, { method, headers, body: options.body }));
  return { status: response.status, headers: response.headers, text: await response.text() };
}

const refs = { customer: "", contact: "", onboarding: "", event: "", endpoint: "" };
const concrete = (path: string, r: typeof refs = refs) =>
  path.replace(":customer_ref", r.customer).replace(":contact_ref", r.contact).replace(":onboarding_ref", r.onboarding).replace(":event_id", r.event).replace(":endpoint_id", r.endpoint);

/** A valid body per operation. */
const validBody = (route: RouteDef): Json | undefined =>
  ({
    createCustomer: { name: `Valid ${crypto.randomUUID().slice(0, 8)}`, domain: "valid.example", metadata: { crm: "1" } },
    updateCustomer: { name: "Renamed", status: "active" },
    createContact: { name: "Ada", email: "ada@valid.example", is_primary: true },
    updateContact: { title: "CTO" },
    createOnboarding: { customer_id: refs.customer, notes: "x", reminder_frequency_days: 3 },
    updateOnboarding: { phase: "review", waiting_on_customer: true },
    createWebhookEndpoint: { url: "https://hooks.valid.example/in", enabled_events: ["onboarding.*"] },
    updateWebhookEndpoint: { description: "Renamed" },
    recoverWebhookEvents: { since: "2026-01-01T00:00:00Z" },
  })[route.operationId];

const newEndpoint = async (key?: string) =>
  JSON.parse((await send("POST", "/api/v1/webhook_endpoints", { body: '{"url":"https://hooks.valid.example/in","enabled_events":["*"]}', ...(key ? { key } : {}) })).text);

/** Records of its own for a route that deletes. */
async function freshRefs(): Promise<typeof refs> {
  const customer = JSON.parse((await send("POST", "/api/v1/customers", { body: JSON.stringify({ name: "Doomed" }) })).text);
  const contact = JSON.parse((await send("POST", `/api/v1/customers/${customer.id}/contacts`, { body: '{"name":"Doomed"}' })).text);
  const onboarding = JSON.parse((await send("POST", "/api/v1/onboardings", { body: JSON.stringify({ customer_id: customer.id }) })).text);
  return { customer: customer.id, contact: contact.id, onboarding: onboarding.id, event: refs.event, endpoint: (await newEndpoint()).id };
}

/** Values that break one property's schema, each in a different way. */
function badValues(schema: Json): unknown[] {
  const members: Json[] = schema.anyOf ?? [schema];
  const out: unknown[] = [];
  const types = members.map((m) => m.type);
  out.push(types.includes("string") ? 12345 : types.includes("object") ? [] : "not-a-value");
  for (const m of members) {
    if (m.maxLength !== undefined) out.push("x".repeat(m.maxLength + 1));
    if (m.minLength !== undefined && m.minLength > 0) out.push("");
    if (m.maximum !== undefined) out.push(m.maximum + 1);
    if (m.minimum !== undefined) out.push(m.minimum - 1);
    if (m.enum) out.push("not_in_the_enum");
    if (m.format || m.pattern) out.push("Not Valid!");
    if (m.type === "string" && !m.enum) out.push("nul\u0000char");
  }
  return out;
}

beforeAll(async () => {
  t = await createTestApp();
  doc = JSON.parse((await send("GET", "/api/v1/openapi.json", { key: null })).text);
  ajv.addSchema({ $id: "openapi", components: doc.components });
  const customer = JSON.parse((await send("POST", "/api/v1/customers", { body: '{"name":"Fixture"}' })).text);
  refs.customer = customer.id;
  refs.contact = JSON.parse((await send("POST", `/api/v1/customers/${customer.id}/contacts`, { body: '{"name":"Fixture"}' })).text).id;
  refs.onboarding = JSON.parse((await send("POST", "/api/v1/onboardings", { body: JSON.stringify({ customer_id: customer.id }) })).text).id;
  refs.event = JSON.parse((await send("GET", "/api/v1/events?limit=1")).text).data[0].id;
  refs.endpoint = (await newEndpoint()).id;
});
afterAll(() => t.close());

describe("every response matches the OpenAPI document", () => {
  test("each route: success, method and query refusals, every authentication failure", async () => {
    for (const route of t.routes) {
      const own = route.method === "DELETE" ? await freshRefs() : refs;
      const path = concrete(route.path, own);
      const body = validBody(route);
      const success = await send(route.method, path, { body: body && JSON.stringify(body) });
      expect(`${route.operationId} ${success.status}`).toBe(`${route.operationId} ${route.success.status}`);
      check(route, "success", success);

      check(route, "unknown query parameter", await send(route.method, `${path}?zzz=1`, { body: body && JSON.stringify(body) }));
      check(route, "repeated query parameter", await send(route.method, `${path}?limit=1&limit=2`, { body: body && JSON.stringify(body) }));
      check(route, "options", await send("OPTIONS", path, { key: null }), "options");
      check(route, "wrong method", await send("PUT", path));

      if (!route.authenticated) continue;
      check(route, "no key", await send(route.method, path, { key: null }));
      check(route, "empty bearer", await send(route.method, path, { key: null, headers: { authorization: "Bearer " } }));
      check(route, "colon", await send(route.method, path, { key: null, headers: { authorization: `Bearer: ${t.keys.live}` } }));
      check(route, "unknown key", await send(route.method, path, { key: `svc_4fT9qLm2${"x".repeat(32)}` }));
      check(route, "revoked key", await send(route.method, path, { key: t.keys.revoked }));
    }
  });

  test("each route with a path reference: not found, another workspace's record, a reference too long", async () => {
    for (const route of t.routes.filter((r) => r.params)) {
      const body = validBody(route);
      const options = { body: body && JSON.stringify(body) };
      const missing = { customer: "42", contact: "7", onboarding: "12" };
      // One level missing at a time, so every kind's 404 is met.
      for (const kind of ["customer", "contact", "onboarding"] as const) {
        if (!route.path.includes(`:${kind}_ref`)) continue;
        check(route, `${kind} not found`, await send(route.method, concrete(route.path, { ...refs, [kind]: missing[kind] }), options));
        check(route, `${kind} ref too long`, await send(route.method, concrete(route.path, { ...refs, [kind]: "x".repeat(256) }), options));
      }
      check(route, "another workspace", await send(route.method, concrete(route.path), { ...options, key: t.keys.other }));
    }
    const getEvent = t.routes.find((r) => r.operationId === "getEvent")!;
    check(getEvent, "event not found", await send("GET", "/api/v1/events/evt_01JD0000000000000000000000"));
    const listEvents = t.routes.find((r) => r.operationId === "listEvents")!;
    // A position this feed never handed out (as after a restore from an older backup).
    check(listEvents, "cursor expired", await send("GET", `/api/v1/events?after=${Buffer.from("1:999999:").toString("base64url")}`));
    check(listEvents, "cursor malformed", await send("GET", "/api/v1/events?after=bm90LWEtY3Vyc29y"));
    const getEndpoint = t.routes.find((r) => r.operationId === "getWebhookEndpoint")!;
    check(getEndpoint, "endpoint not found", await send("GET", "/api/v1/webhook_endpoints/we_01JD0000000000000000000000"));
  });

  test("webhook endpoints: a forbidden address, the per-workspace limit, a test key's ping", async () => {
    const create = t.routes.find((r) => r.operationId === "createWebhookEndpoint")!;
    check(create, "loopback url", await send("POST", "/api/v1/webhook_endpoints", { body: '{"url":"https://127.0.0.1/in","enabled_events":["*"]}' }));
    check(create, "plain http", await send("POST", "/api/v1/webhook_endpoints", { body: '{"url":"http://hooks.valid.example/in","enabled_events":["*"]}' }));
    check(create, "unknown event type", await send("POST", "/api/v1/webhook_endpoints", { body: '{"url":"https://hooks.valid.example/in","enabled_events":["widget.*"]}' }));
    // Another workspace, filled to its limit: the 17th is refused.
    for (let i = 0; i < 16; i++) await newEndpoint(t.keys.other);
    check(create, "limit", await send("POST", "/api/v1/webhook_endpoints", { body: '{"url":"https://hooks.valid.example/in","enabled_events":["*"]}', key: t.keys.other }));
    const ping = t.routes.find((r) => r.operationId === "pingWebhookEndpoint")!;
    check(ping, "test key", await send("POST", `/api/v1/webhook_endpoints/${refs.endpoint}/ping`, { key: t.keys.test }));
  });

  test("each list: every bad query parameter", async () => {
    for (const route of t.routes.filter((r) => r.query)) {
      const path = concrete(route.path);
      for (const [name, property] of Object.entries((route.query as Json).properties as Record<string, Json>)) {
        for (const value of badValues(property)) {
          check(route, `${name}=${String(value).slice(0, 20)}`, await send(route.method, `${path}?${name}=${encodeURIComponent(String(value))}`));
        }
      }
      check(route, "empty page", await send(route.method, `${path}?cursor=2000-01-01T00:00:00Z`));
    }
  });

  test("each body: every bad field, bad JSON, wrong media type, too large, missing fields", async () => {
    for (const route of t.routes.filter((r) => r.body)) {
      const path = concrete(route.path);
      const base = validBody(route)!;
      for (const [name, property] of Object.entries((route.body as Json).properties as Record<string, Json>)) {
        for (const value of badValues(property)) {
          check(route, `${name}=${JSON.stringify(value).slice(0, 20)}`, await send(route.method, path, { body: JSON.stringify({ ...base, [name]: value }) }));
        }
      }
      check(route, "missing fields", await send(route.method, path, { body: "{}" }));
      check(route, "unknown field", await send(route.method, path, { body: JSON.stringify({ ...base, nmae: "typo" }) }));
      check(route, "not JSON", await send(route.method, path, { body: "{" }));
      check(route, "not an object", await send(route.method, path, { body: "[]" }));
      check(route, "not JSON media type", await send(route.method, path, { body: "name=x", headers: { "content-type": "text/plain" } }));
      check(route, "over 1 MiB", await send(route.method, path, { body: JSON.stringify({ name: "x".repeat(1024 * 1024) }) }));
      check(route, "beyond 2^53", await send(route.method, path, { body: '{"metadata":{"n":9007199254740993}}' }));
      check(route, "nested too deep", await send(route.method, path, { body: `{"metadata":${'{"a":'.repeat(40)}1${"}".repeat(40)}}` }));
    }
  });

  test("idempotent creates: replay, reuse with another body, a key in use, bad keys, a taken slug", async () => {
    for (const route of t.routes.filter((r) => r.idempotent)) {
      const path = concrete(route.path);
      const valid = validBody(route);
      const body = valid === undefined ? undefined : JSON.stringify(valid);
      const key = crypto.randomUUID();
      check(route, "first", await send(route.method, path, { body, headers: { "idempotency-key": key } }));
      const replay = await send(route.method, path, { body, headers: { "idempotency-key": key } });
      expect(replay.headers.get("idempotent-replay")).toBe("true");
      check(route, "replay", replay);
      // A body-less POST (rotate, ping) is reused with a body; the others with another value.
      const other = valid === undefined ? {} : "name" in valid ? { name: "Other" } : "url" in valid ? { url: "https://other.valid.example/in" } : "since" in valid ? { since: "2026-02-01T00:00:00Z" } : { notes: "other" };
      check(route, "reused", await send(route.method, path, { body: JSON.stringify({ ...valid, ...other }), headers: { "idempotency-key": key } }));
      const inUse = crypto.randomUUID();
      await run(t.idempotency.begin(t.keyIds.live, inUse, requestFingerprint(route.method, path, body === undefined ? undefined : JSON.parse(body))));
      check(route, "in use", await send(route.method, path, { body, headers: { "idempotency-key": inUse } }));
      check(route, "key too long", await send(route.method, path, { body, headers: { "idempotency-key": "k".repeat(256) } }));
      check(route, "blank key", await send(route.method, path, { body, headers: { "idempotency-key": " " } }));
    }
    const create = t.routes.find((r) => r.operationId === "createCustomer")!;
    await send("POST", "/api/v1/customers", { body: '{"name":"Slugged","slug":"acme-corp"}' });
    check(create, "slug taken", await send("POST", "/api/v1/customers", { body: '{"name":"Again","slug":"acme-corp"}' }));
    const update = t.routes.find((r) => r.operationId === "updateCustomer")!;
    check(update, "slug taken", await send("PATCH", concrete(update.path), { body: '{"slug":"acme-corp"}' }));
  });

  test("rate limited: a default-tier key past 60 requests", async () => {
    const { key } = await run(createApiKey(t.database, systemClock, { workspaceSlug: "acme", name: "small", mode: "live", tier: "default" }));
    const me = t.routes.find((r) => r.operationId === "getMe")!;
    let last: Sent | undefined;
    for (let i = 0; i < 61; i++) last = await send("GET", "/api/v1/me", { key });
    expect(last!.status).toBe(429);
    check(me, "rate limited", last!);
  });

  test("readiness 503 with Redis away, and a 500 when the database breaks", async () => {
    const database = await freshTestDatabase();
    const deadRedis = new Redis(`redis://127.0.0.1:${await freePort()}`, { maxRetriesPerRequest: 0, enableOfflineQueue: false, retryStrategy: () => null, lazyConnect: true });
    deadRedis.on("error", () => {});
    const broken = await createApp({ database: database.database, redis: deadRedis, clock: systemClock, logger: silentLogger, publicUrl: "http://127.0.0.1:3000", redisPrefix: uniquePrefix("rv") });
    try {
      const ready = t.routes.find((r) => r.operationId === "getReadiness")!;
      const response = await send("GET", "/api/v1/health/ready", { key: null, app: broken.app });
      expect(response.status).toBe(503);
      check(ready, "redis away", response);
      await run(createWorkspace(database.database, systemClock, { slug: "acme", name: "Acme" }));
      const { key } = await run(createApiKey(database.database, systemClock, { workspaceSlug: "acme", name: "k", mode: "live", tier: "paid" }));
      await database.query(database.database.engine === "postgres" ? "DROP TABLE customers CASCADE" : "DROP TABLE customers");
      const list = t.routes.find((r) => r.operationId === "listCustomers")!;
      const failed = await send("GET", "/api/v1/customers", { app: broken.app, key });
      expect(failed.status).toBe(500);
      check(list, "table gone", failed);
    } finally {
      // close() stops the app's timers at once (a key-usage flush on a closed database would
      // throw later, in another suite); what it hands to the absent Redis may not finish.
      await Promise.race([broken.close().catch(() => {}), Bun.sleep(2000)]);
      deadRedis.disconnect();
      await database.cleanup();
    }
  });

  test("every documented error example is a body the service really sends", async () => {
    // An unknown path belongs to no operation; its body is still the error shape.
    const unknown = await send("GET", "/api/v1/customer");
    expect(validatorFor(doc.components.schemas.Error)(JSON.parse(unknown.text))).toBe(true);
    seen.set("route_not_found", new Set([shape(JSON.parse(unknown.text).error)]));
    // service_unavailable needs a database that is busy for longer than its retries.
    const unreachable = new Set<ErrorCode>(["service_unavailable"]);
    for (const code of ERROR_CODES) {
      if (unreachable.has(code)) continue;
      const example = shape(ERRORS[code].example);
      const bodies = [...(seen.get(code) ?? [])];
      expect(`${code}: ${bodies.includes(example) ? "seen" : `example ${example} not among ${bodies.join(" | ") || "nothing"}`}`).toBe(`${code}: seen`);
    }
    expect(checked).toBeGreaterThan(400);
  });
});
