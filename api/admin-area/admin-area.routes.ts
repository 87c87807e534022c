import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Elysia } from "elysia";
import type { Clock } from "../../shared/clock.ts";
import type { Database } from "../../shared/db/database.ts";
import { driven } from "../../shared/db/flow.ts";
import type { ApiStores } from "../stores.ts";
import type { Logger } from "../../shared/logger.ts";
import { createAdminAreaService } from "./admin-area.service.ts";
import { clientAddress, createGuards, htmlResponse, redirect, wrap } from "./http.ts";
import { deadLinkPage, invitePage, loginPage, notFoundPage } from "./pages/auth.ts";
import { cookieSettings, createSessions } from "./session.ts";
import type { AdminAreaRouter } from "./context.ts";
import { workspaceRoutes } from "./workspace.routes.ts";
import { formNonces } from "./form-nonces.ts";
import type { ServiceDeps } from "../features.ts";
import type { OnboardingPagesStore } from "./onboarding-pages.store.ts";
import { onboardingRoutes } from "./onboardings.routes.ts";
import { webhookRoutes } from "./webhooks.routes.ts";
import { createAdminWebhooks } from "./webhooks.service.ts";

export interface AdminAreaOptions {
  database: Database;
  store: ApiStores["adminArea"];
  clock: Clock;
  logger: Logger;
  /** Origin of the Origin check, base of invite links; https makes the cookie Secure and `__Host-`. */
  publicUrl: string;
  /** Seals a workspace's Slack token (settings page). */
  secretKey: string | null;
  /** The onboarding pages' store (overview, list, one onboarding). */
  onboardingPages: OnboardingPagesStore;
  /** The API's service dependencies, as its routes get them: the webhooks, onboarding and SLA pages run the same service functions. */
  services: ServiceDeps;
}

const ASSETS = join(import.meta.dir, "assets");
const asset = (file: string, type: string) => {
  const body = readFileSync(join(ASSETS, file), "utf8");
  return () =>
    new Response(body, { headers: { "content-type": type, "cache-control": "public, max-age=300", "x-content-type-options": "nosniff" } });
};

/** Where sign-in lands: the onboardings' overview. */
const LANDING = "/admin/overview";

const SIGNED_OUT_NOTICES: Record<string, string> = {
  signed_out: "You are signed out.",
  password_set: "Your password is set. Sign in with it.",
};


/**
 * The workspace administrators' web application at /admin (keys, users, settings and what
 * the service did), with its own sessions. The operator's /admin/queues and /metrics stay
 * behind ADMIN_TOKEN and know nothing of these sessions.
 */
export function adminArea(options: AdminAreaOptions) {
  const { database, store, clock, logger, publicUrl } = options;
  const service = createAdminAreaService({ database, clock, store, publicUrl, secretKey: options.secretKey });
  const sessions = createSessions(store, clock);
  const cookie = cookieSettings(publicUrl);
  const guards = createGuards({ sessions, cookie, publicUrl, logger });

  const app = new Elysia({ name: "admin-area" });
  const router: AdminAreaRouter = {
    get: (path, handler) => app.get(path, handler as never),
    post: (path, handler) => app.post(path, handler as never, { parse: "none" } as never),
  };

  router.get("/admin/assets/admin.css", asset("admin.css", "text/css; charset=utf-8"));
  router.get("/admin/assets/admin.js", asset("admin.js", "text/javascript; charset=utf-8"));
  const favicon = asset("favicon.svg", "image/svg+xml");
  router.get("/admin/assets/favicon.svg", favicon);
  router.get("/favicon.ico", favicon);
  // A browser at the bare address is a person: the admin area (sign-in, or the overview).
  router.get("/", () => redirect("/admin"));
  router.get("/admin/*", wrap(logger, () => htmlResponse(notFoundPage(), 404)));
  router.get("/admin", wrap(logger, async (ctx) => redirect((await guards.signedIn(ctx)) ? LANDING : "/admin/login")));

  router.get(
    "/admin/login",
    wrap(logger, async (ctx) => {
      if (await guards.signedIn(ctx)) return redirect(LANDING);
      const key = [...new URL(ctx.request.url).searchParams.keys()].find((k) => k in SIGNED_OUT_NOTICES);
      return htmlResponse(loginPage({ notice: key ? { kind: "ok", text: SIGNED_OUT_NOTICES[key]! } : null }));
    }),
  );
  router.post(
    "/admin/login",
    guards.publicAction(async (form, ctx) => {
      const email = form.get("email") ?? "";
      const user = await service.signIn(email, form.get("password") ?? "", clientAddress(ctx));
      if (!user) {
        // One message for every failure: unknown address, wrong password, not an administrator, throttled.
        return htmlResponse(loginPage({ email, notice: { kind: "error", text: "Sign-in failed. Check your e-mail and password, or try again later." } }), 401);
      }
      return redirect(LANDING, { "set-cookie": cookie.set(await sessions.start(user, clientAddress(ctx))) });
    }),
  );
  router.post(
    "/admin/logout",
    guards.action(async (actor, _form, ctx) => {
      await service.signedOut(actor);
      await sessions.end(cookie.read(ctx.request));
      return redirect("/admin/login?signed_out", { "set-cookie": cookie.clear() });
    }),
  );

  router.get(
    "/admin/invite/:token",
    wrap(logger, async (ctx) => {
      const invite = await service.invite(ctx.params.token ?? "");
      return invite ? htmlResponse(invitePage(invite.email, null)) : htmlResponse(deadLinkPage(), 404);
    }),
  );
  router.post(
    "/admin/invite/:token",
    guards.publicAction(async (form, ctx) => {
      const token = ctx.params.token ?? "";
      const invite = await service.invite(token);
      if (!invite) return htmlResponse(deadLinkPage(), 404);
      try {
        await service.setPassword(token, form.get("password") ?? "", clientAddress(ctx));
      } catch (error) {
        if (error instanceof Error && error.name === "AdminAreaError") return htmlResponse(invitePage(invite.email, error.message), 400);
        throw error;
      }
      return redirect("/admin/login?password_set");
    }),
  );

  const pageStore = driven(store);
  const context = {
    store: pageStore,
    service,
    webhooks: { service: createAdminWebhooks({ database, clock, store, webhooks: options.services }), endpoints: driven(options.services.webhookEndpoints) },
    onboardings: { pages: driven(options.onboardingPages), services: options.services },
    guards,
    clock,
    nonces: formNonces(pageStore, clock),
  };
  onboardingRoutes(router, context);
  workspaceRoutes(router, context);
  webhookRoutes(router, context);
  return app;
}
