import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/**
 * The browsable API reference: Redoc's standalone build, served from node_modules by the
 * app itself (no CDN; it works offline), rendering the served OpenAPI document. The page runs
 * no inline script: the bundle finds the <redoc> element and loads the document by its URL.
 */
export const DOCS_PATH = "/api/v1/docs";
export const DOCS_BUNDLE_PATH = "/api/v1/docs/redoc.standalone.js";
/** The document as the reference renders it: the served one without its OPTIONS operations. */
export const DOCS_DOCUMENT_PATH = "/api/v1/docs/openapi.json";
/** The page's own paths, answering GET only (the app's 405 and OPTIONS know them). */
export const DOCS_PATHS = [DOCS_PATH, DOCS_BUNDLE_PATH, DOCS_DOCUMENT_PATH] as const;

/**
 * Scripts from this origin only; styles may be inline because Redoc (styled-components)
 * injects its own <style> elements; the search index runs in a worker made from a blob.
 * Images from this origin or `data:` only: the bundle's one image from elsewhere (its footer
 * logo, from its vendor's CDN) is replaced as it is served (see `readBundle`).
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

/*
 * Redoc reads its options from the element's attributes. It renders DOCS_DOCUMENT_PATH; its
 * download button offers the whole document, OPTIONS included, at /api/v1/openapi.json.
 */
const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Customer Onboarding Service API reference</title>
<link rel="icon" href="/favicon.ico" type="image/svg+xml">
</head>
<body>
<redoc spec-url="${DOCS_DOCUMENT_PATH}" download-definition-url="/api/v1/openapi.json" download-file-name="openapi.json" path-in-middle-panel="true" required-props-first="true"></redoc>
<noscript>This reference needs JavaScript. The document itself is at <a href="/api/v1/openapi.json">/api/v1/openapi.json</a>; the guide is docs/api.md in the repository.</noscript>
<script src="${DOCS_BUNDLE_PATH}"></script>
</body>
</html>
`;

/**
 * The footer's "API docs by Redocly" shows a logo from cdn.redoc.ly: under this page's CSP every
 * load was refused with a console error (and without the CSP the reference would call a third
 * party on every view). It is served as a blank image instead; the link text stays.
 */
export const REDOC_CDN_LOGO = "https://cdn.redoc.ly/redoc/logo-mini.svg";
const BLANK_IMAGE = "data:image/svg+xml,%3Csvg xmlns=%22http://www.w3.org/2000/svg%22 width=%221%22 height=%221%22/%3E";

let bundle: string | undefined;
const readBundle = () =>
  (bundle ??= readFileSync(fileURLToPath(import.meta.resolve("redoc/bundles/redoc.standalone.js")), "utf8").replaceAll(REDOC_CDN_LOGO, BLANK_IMAGE));

/**
 * The served document without the `options` operations: every path documents OPTIONS (204
 * with Allow) for clients and linters, but in a reference read by people they were one
 * operation in three, all alike. The document itself keeps them.
 */
export function referenceDocument(document: unknown): unknown {
  const doc = document as { paths?: Record<string, Record<string, unknown>> };
  const paths = Object.fromEntries(Object.entries(doc.paths ?? {}).map(([path, item]) => [path, Object.fromEntries(Object.entries(item).filter(([method]) => method !== "options"))]));
  return { ...doc, paths };
}

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

const rendered = new WeakMap<object, string>();
/** The reference's document, made once from the served one. */
export function docsDocument(requestId: string, document: object): Response {
  let body = rendered.get(document);
  if (body === undefined) rendered.set(document, (body = JSON.stringify(referenceDocument(document))));
  return new Response(body, { headers: { ...common(requestId), "content-type": "application/json", "cache-control": "no-cache" } });
}
