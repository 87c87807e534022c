/**
 * Webhook deliveries are signed per Standard Webhooks (https://www.standardwebhooks.com):
 * `webhook-signature` holds `v1,<base64 HMAC-SHA256>` (two, space-separated, for 24 hours after
 * a secret is rotated), keyed with the base64 part of the endpoint's `whsec_…` secret, over
 * `<webhook-id>.<webhook-timestamp>.<raw body>`. Verified here with node:crypto, so the
 * client needs no package of its own.
 */
import { Buffer } from "node:buffer";
import { createHmac, timingSafeEqual } from "node:crypto";
import { WebhookVerificationError } from "./errors.js";
import type { WebhookEvent } from "./types.js";

/** A `Headers`, or a plain record such as Node's `req.headers` (names in any case). */
export type WebhookHeaders = Headers | { readonly [name: string]: string | readonly string[] | undefined };

export interface VerifyWebhookOptions {
  /** How far `webhook-timestamp` may be from now, either way (default 300 s, as Standard Webhooks). */
  toleranceSeconds?: number;
  /** "Now" in milliseconds since the epoch (default `Date.now()`). */
  now?: number;
}

const SECRET_PREFIX = "whsec_";

function header(headers: WebhookHeaders, name: string): string | undefined {
  // Duck-typed: a Headers from another realm or library is a Headers too.
  if (typeof (headers as Headers).get === "function") return (headers as Headers).get(name) ?? undefined;
  for (const [key, value] of Object.entries(headers as { readonly [name: string]: string | readonly string[] | undefined })) {
    if (key.toLowerCase() === name) return typeof value === "string" ? value : value?.[0];
  }
  return undefined;
}

/**
 * Checks a delivery and answers its event; throws `WebhookVerificationError` when a header is
 * missing, the timestamp is further than the tolerance from now (a replay), or no signature
 * matches (a forgery, or a body changed on the way). Pass the body exactly as received, before
 * any JSON parsing: re-serialised JSON has other bytes.
 */
export function verifyWebhook(rawBody: string | Uint8Array, headers: WebhookHeaders, secret: string, options: VerifyWebhookOptions = {}): WebhookEvent {
  const id = header(headers, "webhook-id");
  const timestamp = header(headers, "webhook-timestamp");
  const signatures = header(headers, "webhook-signature");
  if (!id || !timestamp || !signatures) {
    throw new WebhookVerificationError("missing_header", "A delivery carries webhook-id, webhook-timestamp and webhook-signature; one is missing.");
  }
  if (!/^\d{1,15}$/.test(timestamp)) throw new WebhookVerificationError("invalid_timestamp", `webhook-timestamp is not whole seconds: ${timestamp}`);
  const tolerance = options.toleranceSeconds ?? 300;
  const age = Math.floor((options.now ?? Date.now()) / 1000) - Number(timestamp);
  if (age > tolerance) throw new WebhookVerificationError("timestamp_too_old", `webhook-timestamp is ${age} s old, more than ${tolerance} s.`);
  if (age < -tolerance) throw new WebhookVerificationError("timestamp_too_new", `webhook-timestamp is ${-age} s in the future, more than ${tolerance} s.`);

  const key = Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, "base64");
  if (key.length === 0) throw new TypeError("The webhook secret is empty; pass the endpoint's whsec_… secret.");
  const body = typeof rawBody === "string" ? Buffer.from(rawBody, "utf8") : Buffer.from(rawBody.buffer, rawBody.byteOffset, rawBody.byteLength);
  const expected = createHmac("sha256", key).update(`${id}.${timestamp}.`).update(body).digest();

  const matches = signatures.split(" ").some((entry) => {
    const comma = entry.indexOf(",");
    if (comma < 0 || entry.slice(0, comma) !== "v1") return false;
    const given = Buffer.from(entry.slice(comma + 1), "base64");
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  if (!matches) throw new WebhookVerificationError("invalid_signature", "No signature in webhook-signature matches this body with this secret.");

  try {
    return JSON.parse(body.toString("utf8")) as WebhookEvent;
  } catch {
    throw new WebhookVerificationError("invalid_body", "The signed body is not JSON.");
  }
}
