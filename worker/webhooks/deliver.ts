import { UnrecoverableError, type Job } from "bullmq";
import type { Clock } from "../../shared/clock.ts";
import { formatMicros } from "../../shared/clock.ts";
import { run } from "../../shared/db/flow.ts";
import type { WebhookEndpointRow } from "../../shared/db/schema.ts";
import { eventResourceOf } from "../../shared/event-resource.ts";
import { newId } from "../../shared/ids.ts";
import { WEBHOOK_RETRY_PAUSES_MS } from "../../shared/jobs/queues.ts";
import { decryptSecret } from "../../shared/secrets.ts";
import type { OutboundRules } from "../../shared/webhooks/outbound-rules.ts";
import { signatureHeader } from "../../shared/webhooks/signature.ts";
import type { QueueHandlers } from "../handlers/types.ts";
import { postWebhook, type PostResult } from "./post.ts";
import type { WebhookDeliveryStore } from "./webhooks.store.ts";

export interface WebhookSettings {
  rules: OutboundRules;
  /** Unseals endpoint secrets (shared/secrets.ts); without it nothing can be signed, so nothing is sent. */
  secretKey: string | null;
  /** Pauses between tries; the contract's schedule unless a test shortens it. */
  pausesMs?: readonly number[];
  /** Per try; the contract's 15 s unless a test shortens it. */
  timeoutMs?: number;
}

/** Five days of consecutive failures disable an endpoint (the contract). */
const FAILING_DAYS = 5;
const FAILING_LIMIT_MICROS = FAILING_DAYS * 86_400e6;
/** The longest `Retry-After` honoured as asked; a longer one waits this long. */
const MAX_RETRY_AFTER_MS = 10 * 3600_000;

/** A try that failed and will be tried again in `retryInMs` (read by BullMQ's custom backoff). */
class RetryLater extends Error {
  constructor(message: string, readonly retryInMs: number) {
    super(message);
  }
}

/**
 * The webhooks queue's handlers. Each job is one event for one endpoint; every try is one
 * attempt row, with the same `webhook-id` (the event's id) every time, so a receiver drops a
 * copy it has seen: a worker killed mid-send delivers again (at least once). A 2xx ends the
 * job; a 410 disables the endpoint at once; any other failure is tried again on the contract's
 * schedule (or after the receiver's `Retry-After`), until the schedule ends or the endpoint
 * has failed for five days, which disables it with its reason.
 */
export function webhookHandlers(deps: { store: WebhookDeliveryStore; clock: Clock; settings: WebhookSettings }): QueueHandlers<"webhooks"> {
  const { store, clock, settings } = deps;
  const pauses = settings.pausesMs ?? WEBHOOK_RETRY_PAUSES_MS;

  async function attempt(job: Job, endpoint: WebhookEndpointRow, eventId: string, body: string, retries: boolean): Promise<void> {
    const now = clock.nowMicros();
    const tryNumber = job.attemptsMade + 1;
    const last = tryNumber >= (job.opts.attempts ?? 1);
    const started = performance.now();
    let result: PostResult | null = null;
    let error: string | null = null;
    try {
      if (!settings.secretKey) throw new Error("SECRET_KEY is not set: the endpoint's secret cannot be unsealed, so nothing is signed or sent");
      const secrets = [decryptSecret(settings.secretKey, endpoint.secret)];
      if (endpoint.previousSecret && (endpoint.previousSecretExpiresAt ?? 0) > now) secrets.push(decryptSecret(settings.secretKey, endpoint.previousSecret));
      const timestamp = Math.floor(now / 1e6);
      result = await postWebhook(
        new URL(endpoint.url),
        body,
        {
          "content-type": "application/json",
          "user-agent": "customer-onboarding-webhooks/1",
          "webhook-id": eventId,
          "webhook-timestamp": String(timestamp),
          "webhook-signature": signatureHeader(secrets, eventId, timestamp, body),
        },
        settings.rules,
        settings.timeoutMs,
      );
      if (result.statusCode < 200 || result.statusCode > 299) error = `answered ${result.statusCode}`;
    } catch (thrown) {
      error = (thrown as Error).message;
    }
    const durationMs = Math.round(performance.now() - started); // whole milliseconds, as the attempts log shows them
    const record = (nextAttemptAt: number | null) =>
      run(
        store.attempt({
          id: newId("wha"),
          orgId: endpoint.orgId,
          endpointId: endpoint.id,
          eventId,
          attempt: tryNumber,
          statusCode: result?.statusCode ?? null,
          durationMs,
          error,
          responseExcerpt: result?.excerpt || null,
          createdAt: now,
          nextAttemptAt,
        }),
      );

    if (error === null) {
      await record(null);
      await run(store.succeeded(endpoint.id));
      return;
    }
    if (result?.statusCode === 410) {
      await record(null);
      await run(store.disable(endpoint.id, `The endpoint answered 410 Gone on ${formatMicros(now)}.`, now));
      return;
    }
    if (!retries) {
      await record(null); // a ping's failure is its answer, not a sign the endpoint is failing
      return;
    }
    const failingSince = await run(store.failing(endpoint.id, now));
    if (now - failingSince >= FAILING_LIMIT_MICROS) {
      await record(null);
      await run(store.disable(endpoint.id, `Every delivery failed for ${FAILING_DAYS} days, since ${formatMicros(failingSince)}; the last: ${error}.`, now));
      return;
    }
    if (last) {
      await record(null);
      throw new UnrecoverableError(`gave up after ${tryNumber} tries: ${error}`);
    }
    const scheduled = jitter(pauses[Math.min(tryNumber - 1, pauses.length - 1)]!);
    const asked = result && (result.statusCode === 429 || result.statusCode === 503) ? result.retryAfterMs : null;
    const pause = asked === null ? scheduled : Math.min(MAX_RETRY_AFTER_MS, Math.max(asked, scheduled));
    await record(now + pause * 1000);
    throw new RetryLater(error, pause);
  }

  /** The endpoint, while it exists and is enabled; a job for any other is done (`recover` can send it later). */
  const enabledEndpoint = async (orgId: string, id: string) => {
    const endpoint = await run(store.endpoint(orgId, id));
    return endpoint?.status === "enabled" ? endpoint : null;
  };

  return {
    "webhook.deliver": async (p, job) => {
      const endpoint = await enabledEndpoint(p.org_id, p.endpoint_id);
      if (!endpoint) return { skipped: "endpoint deleted or disabled" };
      const event = await run(store.event(p.org_id, p.event_id));
      if (!event) return { skipped: "event no longer retained" };
      await attempt(job, endpoint, event.id, JSON.stringify(eventResourceOf(event)), true);
      return { delivered: true };
    },
    "webhook.ping": async (p, job) => {
      const endpoint = await run(store.endpoint(p.org_id, p.endpoint_id));
      if (!endpoint) return { skipped: "endpoint deleted" };
      const ping = {
        object: "event",
        id: p.event_id,
        type: "ping",
        created_at: formatMicros(p.at),
        livemode: true,
        actor: { type: "system", name: "ping" },
        request: null,
        data: { object: { object: "webhook_endpoint", id: endpoint.id, url: endpoint.url } },
      };
      // A ping is tried once, whatever the endpoint's status: it is how an administrator checks one.
      await attempt(job, endpoint, p.event_id, JSON.stringify(ping), false);
      return { pinged: true };
    },
  };
}

const jitter = (ms: number) => Math.round(ms * (0.9 + Math.random() * 0.2));
