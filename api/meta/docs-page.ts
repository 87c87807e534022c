import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/**
 * The browsable API reference: Redoc's standalone build, served from node_modules by the
 * app itself (no CDN; it works offline), rendering the served OpenAPI document. The page runs
 * no inline script: the bundle finds the <redoc> element and loads the document by its URL.
 */
export const DOCS_PATH = "/api/v1/docs";
export const DOCS_BUNDLE_PATH = "/api/v1/docs/redoc.standalone.js";

/**
 * Scripts from this origin only; styles may be inline because Redoc (styled-components)
 * injects its own <style> elements; the search index runs in a worker made from a blob.
 * Redoc's footer logo is an image from its vendor's CDN: refused here, and Redoc hides it.
 */
export const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Customer Onboarding Service API reference</title>
<link rel="icon" href="data:,">
</head>
<body>
<redoc spec-url="/api/v1/openapi.json" hide-download-button="false" path-in-middle-panel="true" required-props-first="true"></redoc>
<noscript>This reference needs JavaScript. The document itself is at <a href="/api/v1/openapi.json">/api/v1/openapi.json</a>; the guide is docs/api.md in the repository.</noscript>
<script src="${DOCS_BUNDLE_PATH}"></script>
</body>
</html>
`;

let bundle: string | undefined;
const readBundle = () => (bundle ??= readFileSync(fileURLToPath(import.meta.resolve("redoc/bundles/redoc.standalone.js")), "utf8"));

const common = (requestId: string) => ({
  "request-id": requestId,
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
});

export function docsPage(requestId: string): Response {
  return new Response(PAGE, {
    headers: { ...common(requestId), "content-type": "text/html; charset=utf-8", "content-security-policy": DOCS_CSP, "cache-control": "no-cache" },
  });
}

export function docsBundle(requestId: string): Response {
  return new Response(readBundle(), {
    headers: { ...common(requestId), "content-type": "text/javascript; charset=utf-8", "cache-control": "public, max-age=3600" },
  });
}
