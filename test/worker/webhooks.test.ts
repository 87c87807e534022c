import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Webhook } from "standardwebhooks";
import { systemClock } from "../../shared/clock.ts";
import { createSideEffectsHarness, HARNESS_ADMIN_TOKEN, waitFor } from "../support/side-effects-harness.ts";
import { startDnsServer } from "../support/dns-server.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver.ts";

/**
 * Webhook deliveries end to end: the API writes the change and its delivery rows, the relay
 * hands them to BullMQ on a real Redis, the worker (in this process) POSTs them to a real
 * receiver on loopback; every signature is checked with the `standardwebhooks` package, not
 * with the service's own code. Short retry pauses and timeout, so the schedule runs in seconds.
 */
let h: Awaited<ReturnType<typeof createSideEffectsHarness>>;
let receiver: WebhookReceiver;
let dns: Awaited<ReturnType<typeof startDnsServer>>;
// The worker's clock runs `skew` ahead when a test needs "five days later".
let skew = 0;
const clock = { nowMicros: () => systemClock.nowMicros() + skew };

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  dns = await startDnsServer();
  h = await createSideEffectsHarness({
    clock,
    webhooks: { rules: { allowHttp: true, allowPrivateNetworks: true, dnsServers: [dns.server] }, pausesMs: [50, 50, 50, 50, 50, 50, 50], timeoutMs: 400 },
  });
});
afterAll(async () => {
  await h.close();
  receiver.stop();
  dns.stop();
});

interface Endpoint {
  id: string;
  secret: string;
}
async function endpoint(url: string, enabled_events: string[] = ["*"], key?: string): Promise<Endpoint> {
  const created = await h.t.call("POST", "/api/v1/webhook_endpoints", { body: { url, enabled_events }, key });
  expect(created.status).toBe(201);
  return created.body;
}
const attempts = async (id: string) => (await h.t.call("GET", `/api/v1/webhook_endpoints/${id}/attempts?limit=100`)).body.data as Record<string, any>[];
/** Polled from the database: polling through the API would spend the key's rate limit. */
const attemptCount = async (id: string) => h.count("webhook_attempts", "endpoint_id = ?", id);
const endpointStatus = async (id: string) => (await h.query<{ status: string }>("SELECT status FROM webhook_endpoints WHERE id = ?", id))[0]?.status;
const deliveredTo = (path: string) => receiver.received.filter((r) => r.path === path);
const newCustomer = async (name: string, key?: string) => (await h.t.call("POST", "/api/v1/customers", { body: { name }, key })).body;

describe("webhook deliveries", () => {
  test("a change is POSTed signed, the body byte for byte the event the API returns, verified by standardwebhooks", async () => {
    const hook = await endpoint(receiver.url("/signed"), ["customer.*"]);
    const customer = await newCustomer("Signed Co");
    await waitFor(() => deliveredTo("/signed").length === 1, "a delivery");
    const [delivery] = deliveredTo("/signed");
    const event = new Webhook(hook.secret).verify(delivery!.body, delivery!.headers) as { id: string; type: string; data: { object: { id: string } } };
    expect([event.type, event.data.object.id]).toEqual(["customer.created", customer.id]);
    expect(delivery!.headers["webhook-id"]).toBe(event.id);
    expect(delivery!.headers["content-type"]).toBe("application/json");
    // The body signed is the body sent, and it is the event as GET /events/{id} serves it.
    expect(delivery!.body).toBe((await h.t.call("GET", `/api/v1/events/${event.id}`)).text);
    // Another secret does not verify it.
    expect(() => new Webhook(`whsec_${Buffer.alloc(24, 1).toString("base64")}`).verify(delivery!.body, delivery!.headers)).toThrow();
    await waitFor(async () => (await attemptCount(hook.id)) === 1, "the attempt");
    const [attempt] = await attempts(hook.id);
    expect(attempt).toMatchObject({ object: "webhook_attempt", event_id: event.id, attempt: 1, status_code: 200, error: null, response_excerpt: "ok", next_attempt_at: null });
    expect(Number.isInteger(attempt!.duration_ms)).toBe(true);
  });

  test("only subscribed types, only live changes: a test key's change queues nothing outbound", async () => {
    await endpoint(receiver.url("/onboardings-only"), ["onboarding.phase_changed"]);
    const customer = await newCustomer("Quiet Co");
    const onboarding = (await h.t.call("POST", "/api/v1/onboardings", { body: { customer_id: customer.id } })).body;
    await h.t.call("PATCH", `/api/v1/onboardings/${onboarding.id}`, { body: { phase: "review" } });
    await waitFor(() => deliveredTo("/onboardings-only").length === 1, "the phase change");
    const before = await h.count("outbox", "queue = 'webhooks'");
    await h.t.call("PATCH", `/api/v1/onboardings/${onboarding.id}`, { body: { phase: "internal_qa" }, key: h.t.keys.test });
    await newCustomer("Test Co", h.t.keys.test);
    expect(await h.count("outbox", "queue = 'webhooks'")).toBe(before);
    await waitFor(() => h.settled(), "the queues to settle");
    expect(deliveredTo("/onboardings-only").map((r) => JSON.parse(r.body).type)).toEqual(["onboarding.phase_changed"]);
  });

  test("a 500 is tried again with the same webhook-id; a 2xx ends it; each try is one attempt", async () => {
    const hook = await endpoint(receiver.url("/flaky"), ["customer.created"]);
    receiver.answer("/flaky", { status: 500, body: "upstream down" }, { status: 503, body: "still down" });
    await newCustomer("Flaky Co");
    await waitFor(() => deliveredTo("/flaky").length === 3, "three tries");
    const ids = new Set(deliveredTo("/flaky").map((r) => r.headers["webhook-id"]));
    expect(ids.size).toBe(1);
    await waitFor(async () => (await attemptCount(hook.id)) === 3, "three attempts");
    const log = await attempts(hook.id);
    expect(log.map((a) => [a.attempt, a.status_code, a.error, a.response_excerpt])).toEqual([
      [3, 200, null, "ok"],
      [2, 503, "answered 503", "still down"],
      [1, 500, "answered 500", "upstream down"],
    ]);
    expect(log[1]!.next_attempt_at).not.toBeNull();
    await waitFor(() => h.settled(), "the queues to settle");
    expect(deliveredTo("/flaky").length).toBe(3); // never called again after the 2xx
    // /metrics counts them by outcome; nothing waits undelivered once the queues settled.
    const metrics = await (await h.t.app.handle(new Request("http://127.0.0.1:3000/metrics", { headers: { authorization: `Bearer ${HARNESS_ADMIN_TOKEN}` } }))).text();
    expect(Number(/^webhook_attempts\{outcome="retrying"\} (\d+)$/m.exec(metrics)?.[1])).toBeGreaterThanOrEqual(2);
    expect(Number(/^webhook_attempts\{outcome="delivered"\} (\d+)$/m.exec(metrics)?.[1])).toBeGreaterThanOrEqual(3);
    expect(metrics).toMatch(/^webhook_oldest_undelivered_seconds 0$/m);
  });

  test("429 with Retry-After waits at least that long", async () => {
    const hook = await endpoint(receiver.url("/limited"), ["customer.created"]);
    receiver.answer("/limited", { status: 429, headers: { "retry-after": "1" } });
    await newCustomer("Limited Co");
    await waitFor(() => deliveredTo("/limited").length === 2, "the try after Retry-After");
    const [tried, again] = deliveredTo("/limited");
    expect(again!.at - tried!.at).toBeGreaterThanOrEqual(900);
    // The receiver answers before the worker records the attempt: wait for the record too.
    await waitFor(async () => (await attempts(hook.id)).length === 2, "the second attempt recorded");
    expect((await attempts(hook.id)).map((a) => a.status_code)).toEqual([200, 429]);
  });

  test("a hanging receiver is cut off at the timeout; a redirect is not followed", async () => {
    const hanging = await endpoint(receiver.url("/hang"), ["customer.created"]);
    const redirecting = await endpoint(receiver.url("/redirect"), ["customer.created"]);
    receiver.answer("/hang", "hang");
    receiver.answer("/redirect", { status: 302, headers: { location: receiver.url("/redirect-target") } });
    await newCustomer("Slow Co");
    await waitFor(async () => (await attemptCount(hanging.id)) >= 1 && (await attemptCount(redirecting.id)) >= 1, "both first attempts");
    const first = async (id: string) => (await attempts(id)).find((a) => a.attempt === 1)!;
    expect([(await first(hanging.id)).status_code, (await first(hanging.id)).error]).toEqual([null, "no answer within 0.4 s"]);
    expect([(await first(redirecting.id)).status_code, (await first(redirecting.id)).error]).toEqual([302, "answered 302"]);
    await waitFor(() => h.settled(), "the queues to settle");
    expect(deliveredTo("/redirect-target")).toEqual([]);
  });

  test("410 disables the endpoint at once, with its reason; nothing more is sent; recover sends what it missed", async () => {
    const hook = await endpoint(receiver.url("/gone"), ["customer.created"]);
    receiver.answer("/gone", { status: 410 });
    const since = new Date().toISOString();
    await newCustomer("Gone Co");
    await waitFor(async () => (await endpointStatus(hook.id)) === "disabled", "the endpoint disabled");
    const disabled = (await h.t.call("GET", `/api/v1/webhook_endpoints/${hook.id}`)).body;
    expect(disabled.disabled_reason).toMatch(/^The endpoint answered 410 Gone on /);
    await newCustomer("Missed Co");
    await waitFor(() => h.settled(), "the queues to settle");
    expect(deliveredTo("/gone").length).toBe(1);

    const enabled = await h.t.call("PATCH", `/api/v1/webhook_endpoints/${hook.id}`, { body: { status: "enabled" } });
    expect([enabled.body.status, enabled.body.disabled_reason]).toEqual(["enabled", null]);
    const recovery = await h.t.call("POST", `/api/v1/webhook_endpoints/${hook.id}/recover`, { body: { since } });
    expect(recovery.status).toBe(202);
    expect(recovery.body).toMatchObject({ object: "webhook_recovery", queued: 2, has_more: false, next_since: null });
    await waitFor(() => deliveredTo("/gone").length === 3, "both events again");
    // Recovery queues oldest first, but deliveries run in parallel: not in order (docs/api.md).
    expect(deliveredTo("/gone").slice(1).map((r) => JSON.parse(r.body).data.object.name).sort()).toEqual(["Gone Co", "Missed Co"]);
    // Delivered now: a second recovery finds nothing to send.
    await waitFor(() => h.settled(), "the queues to settle");
    expect((await h.t.call("POST", `/api/v1/webhook_endpoints/${hook.id}/recover`, { body: { since } })).body.queued).toBe(0);
  });

  test("five days of failures disable the endpoint with the reason", async () => {
    const hook = await endpoint(receiver.url("/failing"), ["customer.created"]);
    receiver.answer("/failing", { status: 500 });
    await newCustomer("Failing Co");
    await waitFor(async () => (await attemptCount(hook.id)) >= 1, "the first failure");
    skew = 5 * 86_400e6 + 1e6; // five days later, still failing
    receiver.answer("/failing", { status: 500 }, { status: 500 }, { status: 500 });
    try {
      await waitFor(async () => (await endpointStatus(hook.id)) === "disabled", "the endpoint disabled");
      const disabled = (await h.t.call("GET", `/api/v1/webhook_endpoints/${hook.id}`)).body;
      expect(disabled.disabled_reason).toMatch(/^Every delivery failed for 5 days, since .*; the last: answered 500\.$/);
    } finally {
      skew = 0;
    }
  });

  test("after a rotation both secrets sign for 24 hours", async () => {
    const hook = await endpoint(receiver.url("/rotated"), ["customer.created"]);
    const rotated = await h.t.call("POST", `/api/v1/webhook_endpoints/${hook.id}/rotate_secret`);
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).not.toBe(hook.secret);
    await newCustomer("Rotated Co");
    await waitFor(() => deliveredTo("/rotated").length === 1, "a delivery");
    const [delivery] = deliveredTo("/rotated");
    expect(delivery!.headers["webhook-signature"]!.split(" ").length).toBe(2);
    for (const secret of [hook.secret, rotated.body.secret]) expect(() => new Webhook(secret).verify(delivery!.body, delivery!.headers)).not.toThrow();
  });

  test("ping: a signed ping event, tried once; its attempt is logged", async () => {
    const hook = await endpoint(receiver.url("/ping"), ["customer.deleted"]);
    const ping = await h.t.call("POST", `/api/v1/webhook_endpoints/${hook.id}/ping`);
    expect(ping.status).toBe(202);
    await waitFor(() => deliveredTo("/ping").length === 1, "the ping");
    const [delivery] = deliveredTo("/ping");
    const event = new Webhook(hook.secret).verify(delivery!.body, delivery!.headers) as { id: string; type: string };
    expect([event.type, event.id]).toEqual(["ping", ping.body.event_id]);
    await waitFor(async () => (await attemptCount(hook.id)) === 1, "its attempt");
  });

  test("another workspace's changes never reach this workspace's endpoints", async () => {
    await endpoint(receiver.url("/mine"), ["*"]);
    await newCustomer("Other Co", h.t.keys.other);
    await waitFor(() => h.settled(), "the queues to settle");
    expect(deliveredTo("/mine")).toEqual([]);
  });
});

describe("outbound safety at send time", () => {
  let strict: Awaited<ReturnType<typeof createSideEffectsHarness>>;
  beforeAll(async () => {
    strict = await createSideEffectsHarness({ webhooks: { rules: { allowHttp: true, allowPrivateNetworks: false, dnsServers: [dns.server] }, pausesMs: [50], timeoutMs: 400 } });
  });
  afterAll(() => strict.close());

  test("a name that resolves to loopback when the delivery is sent is refused, and nothing is connected to", async () => {
    // Saved while it pointed at a public address; by the time of the delivery it points home.
    dns.set("rebind.test", "203.0.113.10");
    const created = await strict.t.call("POST", "/api/v1/webhook_endpoints", { body: { url: `http://rebind.test:${receiver.port}/rebind`, enabled_events: ["customer.created"] } });
    expect(created.status).toBe(201);
    dns.set("rebind.test", "127.0.0.1");
    await strict.t.call("POST", "/api/v1/customers", { body: { name: "Rebind Co" } });
    await waitFor(async () => (await strict.count("webhook_attempts", "endpoint_id = ?", created.body.id)) === 2, "both tries refused");
    const log = (await strict.t.call("GET", `/api/v1/webhook_endpoints/${created.body.id}/attempts`)).body.data;
    expect(log.map((a: { status_code: number | null; error: string }) => [a.status_code, a.error])).toEqual([
      [null, "127.0.0.1 is a loopback address: webhooks go only to public addresses."],
      [null, "127.0.0.1 is a loopback address: webhooks go only to public addresses."],
    ]);
    expect(deliveredTo("/rebind")).toEqual([]);
  });

  test("every literal spelling of a forbidden address is refused when saved", async () => {
    for (const url of ["https://2130706433/x", "https://0x7f.1/x", "https://[::ffff:127.0.0.1]/x", "https://169.254.169.254/latest/meta-data", "https://10.1.2.3/x", "https://[::1]/x", "https://0.0.0.0/x"]) {
      const refused = await strict.t.call("POST", "/api/v1/webhook_endpoints", { body: { url, enabled_events: ["*"] } });
      expect(`${url} ${refused.status} ${refused.body.error?.code}`).toBe(`${url} 400 url_not_allowed`);
    }
  });

  test("the connection goes to the address that was checked, not to a second answer", async () => {
    // A second receiver on another loopback address and the same port: a client that resolved
    // the name again would reach it.
    const elsewhere = await startWebhookReceiver({ hostname: "127.0.0.2", port: receiver.port }).catch(() => null);
    if (!elsewhere) return console.warn("127.0.0.2 cannot be bound here: the second-answer case is skipped");
    try {
      dns.set("pinned.test", "127.0.0.1", "127.0.0.2");
      const hook = await endpoint(`http://pinned.test:${receiver.port}/pinned`, ["customer.created"]);
      await newCustomer("Pinned Co");
      await waitFor(() => deliveredTo("/pinned").length === 1, "the delivery");
      expect(new Webhook(hook.secret).verify(deliveredTo("/pinned")[0]!.body, deliveredTo("/pinned")[0]!.headers)).toBeTruthy();
      expect(elsewhere.received).toEqual([]);
    } finally {
      elsewhere.stop();
    }
  });
});
