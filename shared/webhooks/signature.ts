import { createHmac, randomBytes } from "node:crypto";

/**
 * Standard Webhooks signing (https://www.standardwebhooks.com), so receivers verify with any
 * of its libraries (the tests use the `standardwebhooks` package, not this file): a secret is
 * `whsec_` + base64 of 24 random bytes; the signed content is `<webhook-id>.<webhook-timestamp>.<body>`,
 * the body exactly as sent; the header holds `v1,<base64 HMAC-SHA256>` per secret, space-separated.
 */
export const SECRET_PREFIX = "whsec_";

export const newWebhookSecret = (): string => `${SECRET_PREFIX}${randomBytes(24).toString("base64")}`;

export function signatureHeader(secrets: readonly string[], id: string, timestamp: number, body: string): string {
  return secrets
    .map((secret) => {
      const key = Buffer.from(secret.slice(SECRET_PREFIX.length), "base64");
      return `v1,${createHmac("sha256", key).update(`${id}.${timestamp}.${body}`).digest("base64")}`;
    })
    .join(" ");
}

/** How long the previous secret keeps signing after a rotation (the contract: 24 hours). */
export const ROTATION_OVERLAP_MICROS = 24 * 3600 * 1e6;
