import type { Clock } from "../../shared/clock.ts";
import { systemClock } from "../../shared/clock.ts";
import type { Database } from "../../shared/db/database.ts";
import { run } from "../../shared/db/flow.ts";
import { issueInvite } from "../../shared/invites.ts";
import { addUser } from "../../shared/workspaces.ts";

export interface PageResponse {
  status: number;
  headers: Headers;
  text: string;
  location: string | null;
}

type Handler = { handle(request: Request): Response | Promise<Response> };

/**
 * A browser-like client of the admin area over app.handle: keeps the session cookie, sends
 * forms urlencoded with the page's Origin, and reads CSRF tokens out of pages.
 */
export function adminClient(app: Handler, options: { origin?: string } = {}) {
  const origin = options.origin ?? "http://localhost";
  let cookie: string | null = null;

  async function request(method: string, path: string, form?: Record<string, string>, headers: Record<string, string> = {}): Promise<PageResponse> {
    const h: Record<string, string> = { ...headers };
    if (cookie && !("cookie" in h)) h.cookie = cookie;
    let body: string | undefined;
    if (form !== undefined) {
      body = new URLSearchParams(form).toString();
      h["content-type"] = "application/x-www-form-urlencoded";
      if (!("origin" in h)) h.origin = origin;
      for (const [k, v] of Object.entries(h)) if (v === "") delete h[k];
    }
    const response = await app.handle(new Request(`http://localhost${path}`, { method, headers: h, body, redirect: "manual" }));
    const setCookie = response.headers.get("set-cookie");
    if (setCookie) {
      const pair = setCookie.split(";")[0]!;
      cookie = /=$/.test(pair) || /max-age=0/i.test(setCookie) ? null : pair;
    }
    return { status: response.status, headers: response.headers, text: await response.text(), location: response.headers.get("location") };
  }

  return {
    get: (path: string, headers?: Record<string, string>) => request("GET", path, undefined, headers),
    post: (path: string, form: Record<string, string>, headers?: Record<string, string>) => request("POST", path, form, headers),
    /** Loads a page and posts a form with that page's CSRF token (and nonce, when it has one). */
    async submit(pagePath: string, action: string, form: Record<string, string>, headers?: Record<string, string>) {
      const page = await request("GET", pagePath);
      return request("POST", action, { _csrf: csrfOf(page.text), ...nonceOf(page.text), ...form }, headers);
    },
    async signIn(email: string, password: string) {
      return request("POST", "/admin/login", { email, password });
    },
    get cookie() {
      return cookie;
    },
    set cookie(value: string | null) {
      cookie = value;
    },
  };
}

export type AdminClient = ReturnType<typeof adminClient>;

export function csrfOf(page: string): string {
  const m = /name="_csrf" value="([^"]+)"/.exec(page);
  if (!m) throw new Error("no CSRF token on the page");
  return m[1]!;
}

function nonceOf(page: string): Record<string, string> {
  const m = /name="nonce" value="([^"]+)"/.exec(page);
  return m ? { nonce: m[1]! } : {};
}

/** The path of an invite link (`/admin/invite/<token>`). */
export const invitePath = (url: string) => new URL(url).pathname;

/** An administrator added the way the operator's `user add --role admin` does, with their invite link. */
export async function inviteAdmin(database: Database, workspaceSlug: string, email: string, options: { name?: string; clock?: Clock; publicUrl?: string } = {}) {
  const clock = options.clock ?? systemClock;
  return await run(
    database.transaction(function* () {
      const user = yield* addUser(database, clock, { workspaceSlug, name: options.name ?? email.split("@")[0]!, email, role: "admin" });
      return { user, invite: yield* issueInvite(database, clock, user, options.publicUrl ?? "http://127.0.0.1:3000") };
    }),
  );
}

export const PASSWORD = "correct horse battery staple";

/** Invites an administrator, sets their password through the page and signs them in. */
export async function signedInAdmin(app: Handler, database: Database, workspaceSlug: string, email: string, clock?: Clock) {
  const { user, invite } = await inviteAdmin(database, workspaceSlug, email, { clock });
  const client = adminClient(app);
  const set = await client.post(invitePath(invite.url), { password: PASSWORD });
  if (set.status !== 303) throw new Error(`setting the password answered ${set.status}: ${set.text}`);
  const signIn = await client.signIn(email, PASSWORD);
  if (signIn.status !== 303) throw new Error(`sign-in answered ${signIn.status}: ${signIn.text}`);
  return { client, user };
}
