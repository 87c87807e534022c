import { timingSafeEqual } from "node:crypto";
import type { Clock } from "../../shared/clock.ts";
import { run, type MaybePromise } from "../../shared/db/flow.ts";
import { hashToken, randomToken } from "../../shared/invites.ts";
import type { ApiStores } from "../stores.ts";
import type { SessionView } from "./admin-area.store.ts";

export const IDLE_LIFETIME_MICROS = 12 * 3600 * 1_000_000;
export const ABSOLUTE_LIFETIME_MICROS = 7 * 24 * 3600 * 1_000_000;
/** last_seen_at is written at most once a minute per session. */
const TOUCH_EVERY_MICROS = 60 * 1_000_000;

/**
 * The session cookie: a random token (the database keeps its SHA-256), HttpOnly and
 * SameSite=Lax; on https it is Secure and carries the `__Host-` prefix (no Domain, Path=/).
 */
export function cookieSettings(publicUrl: string) {
  const secure = new URL(publicUrl).protocol === "https:";
  const name = secure ? "__Host-admin_session" : "admin_session";
  const attributes = `Path=/; HttpOnly; SameSite=Lax${secure ? "; Secure" : ""}`;
  return {
    name,
    set: (token: string) => `${name}=${token}; ${attributes}; Max-Age=${ABSOLUTE_LIFETIME_MICROS / 1_000_000}`,
    clear: () => `${name}=; ${attributes}; Max-Age=0`,
    read(request: Request): string | null {
      const header = request.headers.get("cookie");
      if (!header) return null;
      for (const part of header.split(";")) {
        const [key, ...rest] = part.trim().split("=");
        if (key === name) return rest.join("=") || null;
      }
      return null;
    },
  };
}

/**
 * Sessions over the admin area's store, on either engine. Each call is a flow driven by `run`:
 * on SQLite it answers plainly (a page's session lookup costs no promise), on PostgreSQL a promise.
 */
export function createSessions(store: ApiStores["adminArea"], clock: Clock) {
  return {
    /** Starts a session; returns the cookie's token (never stored). */
    start(user: { id: string; orgId: string }, address: string | null): MaybePromise<string> {
      return run(
        (function* () {
          const token = randomToken();
          const now = clock.nowMicros();
          // Housekeeping at each sign-in keeps both tables small without a timer.
          yield* store.purgeExpired(now - IDLE_LIFETIME_MICROS, now - ABSOLUTE_LIFETIME_MICROS, now - 24 * 3600 * 1_000_000);
          yield* store.insertSession({ tokenHash: hashToken(token), userId: user.id, orgId: user.orgId, csrfToken: randomToken(), now, address });
          return token;
        })(),
      );
    },
    /**
     * The session behind a cookie, or null when there is none, it went idle for 12 hours, it
     * is older than 7 days, or its user was removed or is no longer an administrator.
     */
    resume(token: string | null): MaybePromise<SessionView | null> {
      if (!token) return null;
      return run(
        (function* () {
          const tokenHash = hashToken(token);
          const session = yield* store.session(tokenHash);
          if (!session) return null;
          const now = clock.nowMicros();
          if (now - session.lastSeenAt > IDLE_LIFETIME_MICROS || now - session.createdAt > ABSOLUTE_LIFETIME_MICROS) {
            yield* store.deleteSession(tokenHash);
            return null;
          }
          if (now - session.lastSeenAt > TOUCH_EVERY_MICROS) yield* store.touchSession(tokenHash, now);
          return session;
        })(),
      );
    },
    end(token: string | null): MaybePromise<void> {
      if (!token) return;
      return run(
        (function* () {
          yield* store.deleteSession(hashToken(token));
        })(),
      );
    },
  };
}

export type Sessions = ReturnType<typeof createSessions>;

export function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
