import { sameSecret } from "./session.ts";

/**
 * Strict policy for every admin-area response: scripts and styles only from the app itself,
 * no inline code, no framing, forms only to this origin.
 */
export const CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
  "form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

export const PAGE_HEADERS: Record<string, string> = {
  "content-type": "text/html; charset=utf-8",
  "content-security-policy": CONTENT_SECURITY_POLICY,
  "referrer-policy": "same-origin",
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  // Pages may hold a secret (a new key, an invite link) and always hold workspace data.
  "cache-control": "no-store",
};

function originOf(value: string | null): string | null {
  if (!value) return null;
  try {
    return new URL(value).origin;
  } catch {
    return null;
  }
}

/**
 * A state-changing request must come from a page of this service: its `Origin` (or, when a
 * browser sends none, its `Referer`) must be PUBLIC_URL's origin or the origin the request
 * was addressed to. A cross-site form post carries the other site's origin (or `null`).
 */
export function sameOrigin(request: Request, publicUrl: string): boolean {
  const origin = request.headers.get("origin");
  const presented = origin !== null ? originOf(origin) : originOf(request.headers.get("referer"));
  if (presented === null) return false;
  return presented === new URL(publicUrl).origin || presented === new URL(request.url).origin;
}

export function csrfValid(expected: string, presented: string | null): boolean {
  return presented !== null && sameSecret(expected, presented);
}
