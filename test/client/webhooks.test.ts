import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Webhook } from "standardwebhooks";
import { OnboardingClient, verifyWebhook, WebhookVerificationError, type WebhookEvent } from "../../client";
import { signatureHeader } from "../../shared/webhooks/signature.ts";
import { waitFor } from "../support/wait.ts";
import { startWebhookReceiver, type Received, type WebhookReceiver } from "../support/webhook-receiver.ts";
import { clientOf, LOOPBACK_WEBHOOKS, startApiProcess, startWorkerBeside, type ApiProcess } from "./support/service.ts";

/**
 * `verifyWebhook` on real deliveries: the API process takes the endpoint, the worker process
 * signs and sends each event to a loopback receiver, and the client checks what arrived.
 * Forged, changed and replayed deliveries are refused.
 */
let api: ApiProcess;
let worker: ReturnType<typeof startWorkerBeside>;
let receiver: WebhookReceiver;
let client: OnboardingClient;
beforeAll(async () => {
  receiver = await startWebhookReceiver();
  api = await startApiProcess({ env: LOOPBACK_WEBHOOKS });
  worker = startWorkerBeside(api, LOOPBACK_WEBHOOKS);
  client = clientOf(api);
});
afterAll(async () => {
  await worker?.stop();
  await api?.stop();
  receiver?.stop();
});

const deliveredTo = (path: string) => receiver.received.filter((r) => r.path === path);

/** Expects `verifyWebhook` to refuse, and answers its code. */
function refusal(body: string, headers: Record<string, string>, secret: string, options?: Parameters<typeof verifyWebhook>[3]): string {
  try {
    verifyWebhook(body, headers, secret, options);
    return "accepted";
  } catch (error) {
    expect(error).toBeInstanceOf(WebhookVerificationError);
    return (error as WebhookVerificationError).code;
  }
}

describe("verifyWebhook on real deliveries", () => {
  let endpoint: Awaited<ReturnType<OnboardingClient["webhookEndpoints"]["create"]>>;
  let deliveries: Received[];

  test("each delivery verifies and is the event the feed holds, typed by its type", async () => {
    endpoint = await client.webhookEndpoints.create({ url: receiver.url("/hooks"), enabled_events: ["customer.created", "onboarding.phase_changed"] });
    const customer = await client.customers.create({ name: "Hooked Co" });
    const onboarding = await client.onboardings.create({ customer_id: customer.id });
    await client.onboardings.update(onboarding.id, { phase: "review" });
    deliveries = (await waitFor(() => (deliveredTo("/hooks").length >= 2 ? deliveredTo("/hooks") : null), "two deliveries", 20_000))!;
    expect(deliveries).toHaveLength(2);

    const events: WebhookEvent[] = deliveries.map((d) => verifyWebhook(d.body, d.headers, endpoint.secret));
    for (const [i, event] of events.entries()) {
      expect(event.id).toBe(deliveries[i]!.headers["webhook-id"]!);
      expect(event).toEqual(await client.events.retrieve(event.id));
      // The reference implementation agrees.
      expect(new Webhook(endpoint.secret).verify(deliveries[i]!.body, deliveries[i]!.headers)).toEqual(event);
    }
    expect(events.map((e) => e.type).sort()).toEqual(["customer.created", "onboarding.phase_changed"]);
    const phase = events.find((e) => e.type === "onboarding.phase_changed");
    expect(phase?.type === "onboarding.phase_changed" ? [phase.data.object.phase, phase.data.previous_attributes?.phase] : null).toEqual(["review", "before_getting_started"]);

    // Headers as Node's req.headers, as a Headers object, and in another letter case: all the same.
    const [first] = deliveries;
    expect(verifyWebhook(first!.body, new Headers(first!.headers), endpoint.secret).id).toBe(first!.headers["webhook-id"]!);
    const shouting = Object.fromEntries(Object.entries(first!.headers).map(([k, v]) => [k.toUpperCase(), v]));
    expect(verifyWebhook(new TextEncoder().encode(first!.body), shouting, endpoint.secret).id).toBe(first!.headers["webhook-id"]!);

    // The worker records an attempt once its answer is in, after the receiver has the body: polled, not read once.
    const attempts = await waitFor(async () => {
      const listed = await client.webhookEndpoints.attempts(endpoint.id, { limit: 1 }).toArray();
      return listed.length >= 2 ? listed : null;
    }, "both attempts recorded", 10_000);
    expect(attempts!.map((a) => a.status_code)).toEqual([200, 200]);
  });

  test("a changed body, another secret, a missing header and an old or future timestamp are refused", () => {
    const [{ body, headers }] = deliveries as [Received];
    const otherSecret = `whsec_${Buffer.from("x".repeat(24)).toString("base64")}`;
    expect(refusal(body.replace('"object"', '"objecT"'), headers, endpoint.secret)).toBe("invalid_signature");
    expect(refusal(`${body} `, headers, endpoint.secret)).toBe("invalid_signature");
    expect(refusal(body, headers, otherSecret)).toBe("invalid_signature");
    expect(refusal(body, { ...headers, "webhook-id": "evt_other" }, endpoint.secret)).toBe("invalid_signature");
    const { "webhook-signature": _, ...unsigned } = headers;
    expect(refusal(body, unsigned, endpoint.secret)).toBe("missing_header");
    expect(refusal(body, { ...headers, "webhook-timestamp": "soon" }, endpoint.secret)).toBe("invalid_timestamp");

    // The same delivery replayed six minutes later, and one signed (with the right secret) ten minutes ago.
    const sentAt = Number(headers["webhook-timestamp"]);
    expect(refusal(body, headers, endpoint.secret, { now: (sentAt + 360) * 1000 })).toBe("timestamp_too_old");
    expect(verifyWebhook(body, headers, endpoint.secret, { now: (sentAt + 360) * 1000, toleranceSeconds: 600 }).id).toBe(headers["webhook-id"]!);
    const old = sentAt - 600;
    const resigned = { ...headers, "webhook-timestamp": String(old), "webhook-signature": signatureHeader([endpoint.secret], headers["webhook-id"]!, old, body) };
    expect(refusal(body, resigned, endpoint.secret)).toBe("timestamp_too_old");
    const ahead = sentAt + 600;
    const future = { ...headers, "webhook-timestamp": String(ahead), "webhook-signature": signatureHeader([endpoint.secret], headers["webhook-id"]!, ahead, body) };
    expect(refusal(body, future, endpoint.secret)).toBe("timestamp_too_new");
  });

  test("after a secret rotation deliveries carry two signatures and verify with either secret; a ping verifies as a ping", async () => {
    const rotated = await client.webhookEndpoints.rotateSecret(endpoint.id);
    await client.customers.create({ name: "Rotated Co" });
    const ping = await client.webhookEndpoints.ping(endpoint.id);
    const [delivery, pinged] = (await waitFor(() => {
      const after = deliveredTo("/hooks").slice(2);
      const byType = (type: string) => after.find((d) => JSON.parse(d.body).type === type);
      return byType("customer.created") && byType("ping") ? [byType("customer.created")!, byType("ping")!] : null;
    }, "the delivery after the rotation and the ping", 20_000))!;

    expect(delivery.headers["webhook-signature"]!.split(" ")).toHaveLength(2);
    const withNew = verifyWebhook(delivery.body, delivery.headers, rotated.secret);
    expect(verifyWebhook(delivery.body, delivery.headers, endpoint.secret)).toEqual(withNew);
    expect(withNew.type === "customer.created" ? withNew.data.object.name : null).toBe("Rotated Co");

    const event = verifyWebhook(pinged.body, pinged.headers, rotated.secret);
    expect(event.type).toBe("ping");
    expect(event.id).toBe(ping.event_id);
    expect(event.type === "ping" ? event.data.object : null).toEqual({ object: "webhook_endpoint", id: endpoint.id, url: endpoint.url });
  });
});
