import type { WebhookEvent } from "./types.js";
/** A `Headers`, or a plain record such as Node's `req.headers` (names in any case). */
export type WebhookHeaders = Headers | {
    readonly [name: string]: string | readonly string[] | undefined;
};
export interface VerifyWebhookOptions {
    /** How far `webhook-timestamp` may be from now, either way (default 300 s, as Standard Webhooks). */
    toleranceSeconds?: number;
    /** "Now" in milliseconds since the epoch (default `Date.now()`). */
    now?: number;
}
/**
 * Checks a delivery and answers its event; throws `WebhookVerificationError` when a header is
 * missing, the timestamp is further than the tolerance from now (a replay), or no signature
 * matches (a forgery, or a body changed on the way). Pass the body exactly as received, before
 * any JSON parsing: re-serialised JSON has other bytes.
 */
export declare function verifyWebhook(rawBody: string | Uint8Array, headers: WebhookHeaders, secret: string, options?: VerifyWebhookOptions): WebhookEvent;
