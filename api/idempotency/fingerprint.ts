import { createHash } from "node:crypto";

/** JSON with object keys sorted at every depth, so `{"a":1,"b":2}` and `{"b":2,"a":1}` agree. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  const entries = Object.keys(value)
    .sort()
    .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
  return `{${entries.join(",")}}`;
}

/** What makes two requests "the same" under one Idempotency-Key: method, path and body. */
export function requestFingerprint(method: string, pathname: string, body: unknown): string {
  return createHash("sha256").update(`${method} ${pathname}\n${canonicalJson(body)}`).digest("hex");
}
