import type { Logger } from "../../shared/logger.ts";
import type { SafeHtml } from "./html.ts";
import { refusedPage } from "./pages/auth.ts";
import { csrfValid, PAGE_HEADERS, sameOrigin } from "./security.ts";
import type { AdminActor } from "./admin-area.service.ts";
import type { SessionView } from "./admin-area.store.ts";
import type { cookieSettings, Sessions } from "./session.ts";

export interface Ctx {
  request: Request;
  params: Record<string, string>;
  server: { requestIP(request: Request): { address: string } | null } | null;
}

export const FORM_MAX_BYTES = 64 * 1024;

export const htmlResponse = (body: SafeHtml, status = 200, headers: Record<string, string> = {}) =>
  new Response(body.value, { status, headers: { ...PAGE_HEADERS, ...headers } });

/** 303 See Other: after a form, the browser loads the next page with GET. */
export const redirect = (location: string, headers: Record<string, string> = {}) =>
  new Response(null, { status: 303, headers: { ...PAGE_HEADERS, location, ...headers } });

export const clientAddress = (ctx: Ctx) => ctx.server?.requestIP(ctx.request)?.address ?? null;

/** Reads an urlencoded form, refusing bodies over 64 KiB before reading them whole. */
export async function readForm(request: Request): Promise<URLSearchParams | null> {
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > FORM_MAX_BYTES) return null;
  const text = await request.text();
  if (text.length > FORM_MAX_BYTES) return null;
  return new URLSearchParams(text);
}

export interface GuardDeps {
  sessions: Sessions;
  cookie: ReturnType<typeof cookieSettings>;
  publicUrl: string;
  logger: Logger;
}

export function createGuards(deps: GuardDeps) {
  /** The request's session: a plain answer on SQLite, a promise on PostgreSQL (await it either way). */
  const signedIn = (ctx: Ctx) => deps.sessions.resume(deps.cookie.read(ctx.request));
  const toLogin = () => redirect("/admin/login", { "set-cookie": deps.cookie.clear() });

  return {
    signedIn,
    /** A page for a signed-in administrator, or the way to the sign-in page. */
    page(render: (session: SessionView, ctx: Ctx) => Response | Promise<Response>) {
      return wrap(deps.logger, async (ctx: Ctx) => {
        const found = signedIn(ctx);
        const session = found instanceof Promise ? await found : found;
        return session ? render(session, ctx) : toLogin();
      });
    },
    /**
     * A state-changing form of a signed-in administrator: same origin, the session's CSRF
     * token, a readable body; anything else is refused before the action runs.
     */
    action(run: (actor: AdminActor, form: URLSearchParams, ctx: Ctx) => Response | Promise<Response>) {
      return wrap(deps.logger, async (ctx: Ctx) => {
        if (!sameOrigin(ctx.request, deps.publicUrl)) return htmlResponse(refusedPage("This form was not sent from a page of this site, so it was refused."), 403);
        const found = signedIn(ctx);
        const session = found instanceof Promise ? await found : found;
        if (!session) return toLogin();
        const form = await readForm(ctx.request);
        if (!form) return htmlResponse(refusedPage("The form is too large."), 413);
        if (!csrfValid(session.csrfToken, form.get("_csrf"))) {
          return htmlResponse(refusedPage("The form has expired. Go back, reload the page and try again."), 403);
        }
        return run({ session, address: clientAddress(ctx) }, form, ctx);
      });
    },
    /** A form without a session (sign-in, set password): the Origin check still applies. */
    publicAction(run: (form: URLSearchParams, ctx: Ctx) => Response | Promise<Response>) {
      return wrap(deps.logger, async (ctx: Ctx) => {
        if (!sameOrigin(ctx.request, deps.publicUrl)) return htmlResponse(refusedPage("This form was not sent from a page of this site, so it was refused."), 403);
        const form = await readForm(ctx.request);
        if (!form) return htmlResponse(refusedPage("The form is too large."), 413);
        return run(form, ctx);
      });
    },
  };
}

/** An unexpected failure becomes a plain error page (logged with its stack), never a stack trace on screen. */
export function wrap(logger: Logger, handler: (ctx: Ctx) => Response | Promise<Response>) {
  return async (ctx: Ctx) => {
    try {
      return await handler(ctx);
    } catch (error) {
      logger.error("admin area error", { path: new URL(ctx.request.url).pathname, error: error instanceof Error ? { message: error.message, stack: error.stack } : String(error) });
      return htmlResponse(refusedPage("Something went wrong on our side. Try again in a moment."), 500);
    }
  };
}
