import http from "node:http";
import https from "node:https";
import { resolveAllowed, type OutboundRules } from "../../shared/webhooks/outbound-rules.ts";

/** The answer of one delivery try, as the attempts log keeps it. */
export interface PostResult {
  statusCode: number;
  /** `Retry-After` in ms, when the receiver sent one we can read. */
  retryAfterMs: number | null;
  /** At most EXCERPT_BYTES of the body, as text. */
  excerpt: string;
}

/** The contract's bounds: a 15 s timeout for the whole exchange, at most 64 KiB of the answer read. */
export const POST_TIMEOUT_MS = 15_000;
const MAX_ANSWER_BYTES = 64 * 1024;
const EXCERPT_BYTES = 1024;

/**
 * POSTs `body` to `url`, connected to an address that passed the outbound rules: the host is
 * resolved and every address checked here (UrlNotAllowed otherwise), and the connection's own
 * lookup answers with those checked addresses, so a name that resolves elsewhere a moment
 * later (DNS rebinding) is never asked again. Redirects are not followed (a 3xx is a failed
 * try); the answer is read up to 64 KiB and the rest dropped.
 */
export async function postWebhook(url: URL, body: string, headers: Record<string, string>, rules: OutboundRules, timeoutMs = POST_TIMEOUT_MS): Promise<PostResult> {
  const addresses = await resolveAllowed(url, rules);
  const client = url.protocol === "https:" ? https : http;
  return new Promise<PostResult>((resolve, reject) => {
    const request = client.request(
      {
        protocol: url.protocol,
        hostname: url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname,
        port: url.port || undefined,
        path: `${url.pathname}${url.search}`,
        method: "POST",
        headers: { ...headers, "content-length": String(Buffer.byteLength(body)) },
        // The connection goes to the addresses checked above, whatever the name resolves to now.
        lookup: (_hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
          if (options?.all) callback(null, addresses);
          else callback(null, addresses[0]!.address, addresses[0]!.family);
        },
      } as http.RequestOptions,
      (response) => {
        const chunks: Buffer[] = [];
        let read = 0;
        response.on("data", (chunk: Buffer) => {
          if (read >= MAX_ANSWER_BYTES) return;
          chunks.push(chunk);
          read += chunk.length;
          if (read >= MAX_ANSWER_BYTES) response.destroy(); // the rest is never read
        });
        const done = () => {
          clearTimeout(timer);
          resolve({
            statusCode: response.statusCode ?? 0,
            retryAfterMs: retryAfterMs(response.headers["retry-after"]),
            excerpt: Buffer.concat(chunks).subarray(0, EXCERPT_BYTES).toString("utf8"),
          });
        };
        response.on("end", done);
        response.on("close", done);
        response.on("error", done);
      },
    );
    const timer = setTimeout(() => request.destroy(new Error(`no answer within ${timeoutMs / 1000} s`)), timeoutMs);
    request.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    request.end(body);
  });
}

/** `Retry-After` as seconds or an HTTP date, in ms; null when absent or unreadable. */
function retryAfterMs(value: string | string[] | undefined): number | null {
  const text = Array.isArray(value) ? value[0] : value;
  if (!text) return null;
  if (/^\d+$/.test(text.trim())) return Number(text.trim()) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : Math.max(0, at - Date.now());
}
