import type { Clock } from "../../shared/clock.ts";
import type { Database } from "../../shared/db/database.ts";
import { run, type Flow, type MaybePromise } from "../../shared/db/flow.ts";
import type { UserRole } from "../../shared/db/schema.ts";
import type { KeyMode } from "../../shared/domain.ts";
import { DomainError } from "../../shared/errors.ts";
import { hashToken, issueInvite } from "../../shared/invites.ts";
import { addUser, createApiKey, OperatorError, removeUser, revokeApiKey, updateWorkspace, updateUser } from "../../shared/workspaces.ts";
import type { ApiStores } from "../stores.ts";
import type { SessionView } from "./admin-area.store.ts";

/** A refusal shown to the administrator on the page (bad input, a stale link). */
export class AdminAreaError extends Error {
  override name = "AdminAreaError";
}

export interface AdminAreaDeps {
  database: Database;
  clock: Clock;
  store: ApiStores["adminArea"];
  publicUrl: string;
  secretKey: string | null;
}

/** The signed-in administrator and where the request came from: every action is audited with both. */
export interface AdminActor {
  session: SessionView;
  address: string | null;
}

export const PASSWORD_MIN = 12;
export const PASSWORD_MAX = 200;

/**
 * Sign-in throttling lives in the database (table `login_failures`), so every API process
 * shares it: per account 10 failures, per address 30, in a 15-minute window.
 */
export const LOGIN_WINDOW_MICROS = 15 * 60 * 1_000_000;
export const LOGIN_LIMITS = { account: 10, address: 30 };

let dummyHash: Promise<string> | undefined;
const hashPassword = (password: string) => Bun.password.hash(password, { algorithm: "argon2id" });

/**
 * Operator errors from shared/workspaces.ts name CLI flags; on a page the field's label says it
 * better. A service's refusal (DomainError, as the API would answer it) is shown as its message.
 */
const pageMessage = (error: unknown) => {
  if (error instanceof OperatorError || error instanceof AdminAreaError) {
    return error.message.replace(/--slack-user-id/g, "Slack user id").replace(/--name/g, "Name").replace(/--email/g, "E-mail").replace(/--role/g, "Role");
  }
  if (error instanceof DomainError) return error.message;
  throw error;
};

/** Writes one audit entry for an administrator's action, inside the action's transaction. */
export function auditWriter(store: ApiStores["adminArea"], clock: Clock) {
  return function* audit(actor: AdminActor, action: string, target: string | null, detail: string | null = null): Flow<void> {
    yield* store.audit({ orgId: actor.session.orgId, actorUserId: actor.session.userId, actor: actor.session.email, action, target, detail, address: actor.address, at: clock.nowMicros() });
  };
}

/**
 * Runs an action (plain or promised, as the engine answers); an operator's or administrator's
 * mistake comes back as a message for the page.
 */
export async function attempt<T>(fn: () => MaybePromise<T>): Promise<{ ok: true; value: T } | { ok: false; message: string }> {
  try {
    return { ok: true, value: await fn() };
  } catch (error) {
    return { ok: false, message: pageMessage(error) };
  }
}

/*
 * Every change of several statements is one `database.transaction` flow: on SQLite it runs
 * synchronously inside BEGIN IMMEDIATE … COMMIT, on PostgreSQL as a real transaction. Password
 * hashing (argon2id, slow on purpose) always happens before a transaction opens.
 */
export function createAdminAreaService(deps: AdminAreaDeps) {
  const { database, clock, store } = deps;

  const audit = auditWriter(store, clock);

  function* throttled(bucket: string, limit: number): Flow<boolean> {
    const row = yield* store.loginFailures(bucket);
    return row !== undefined && clock.nowMicros() - row.windowStartedAt < LOGIN_WINDOW_MICROS && row.failures >= limit;
  }

  function* countFailure(bucket: string): Flow<void> {
    const now = clock.nowMicros();
    const row = yield* store.loginFailures(bucket);
    if (!row || now - row.windowStartedAt >= LOGIN_WINDOW_MICROS) yield* store.putLoginFailures(bucket, now, 1);
    else yield* store.putLoginFailures(bucket, row.windowStartedAt, row.failures + 1);
  }

  /** The invite behind a link, when it is unused, unexpired and its user still an administrator. */
  function* findInvite(token: string) {
    const invite = yield* store.invite(hashToken(token));
    if (!invite || invite.usedAt !== null || invite.expiresAt <= clock.nowMicros() || invite.role !== "admin") return null;
    return invite;
  }

  return {
    invite: (token: string) => run(findInvite(token)),

    /**
     * Checks e-mail and password. Every failure looks the same to the caller (unknown
     * address, wrong password, not an administrator, throttled); an unknown address still
     * costs one argon2id verification, so timing does not tell them apart either.
     */
    async signIn(emailInput: string, password: string, address: string | null): Promise<{ id: string; orgId: string } | null> {
      const email = emailInput.trim().toLowerCase();
      const accountBucket = `account:${email}`;
      const addressBucket = `address:${address ?? "unknown"}`;
      if ((await run(throttled(accountBucket, LOGIN_LIMITS.account))) || (await run(throttled(addressBucket, LOGIN_LIMITS.address)))) return null;
      const candidates = email === "" || password === "" ? [] : await run(store.adminsByEmail(email));
      let found: { id: string; orgId: string } | null = null;
      for (const candidate of candidates) {
        if (await Bun.password.verify(password, candidate.passwordHash)) {
          found = { id: candidate.id, orgId: candidate.orgId };
          break;
        }
      }
      if (candidates.length === 0) await Bun.password.verify(password || "x", await (dummyHash ??= hashPassword("not a real password")));
      const signedIn = found;
      await run(
        database.transaction(function* () {
          if (!signedIn) {
            yield* countFailure(accountBucket);
            yield* countFailure(addressBucket);
            // A wrong password for a real administrator shows in that workspace's audit log.
            for (const c of candidates) {
              yield* store.audit({ orgId: c.orgId, actorUserId: c.id, actor: email, action: "session.sign_in_failed", target: null, detail: null, address, at: clock.nowMicros() });
            }
            return;
          }
          yield* store.clearLoginFailures(accountBucket);
          yield* store.audit({ orgId: signedIn.orgId, actorUserId: signedIn.id, actor: email, action: "session.sign_in", target: null, detail: null, address, at: clock.nowMicros() });
        }),
      );
      return found;
    },

    signedOut(actor: AdminActor): MaybePromise<void> {
      return run(audit(actor, "session.sign_out", null));
    },

    /** Sets the password and spends the link; the user's other sessions end. */
    async setPassword(token: string, password: string, address: string | null): Promise<void> {
      if (password.length < PASSWORD_MIN || password.length > PASSWORD_MAX) {
        throw new AdminAreaError(`The password must be ${PASSWORD_MIN} to ${PASSWORD_MAX} characters.`);
      }
      const passwordHash = await hashPassword(password);
      await run(
        database.transaction(function* () {
          const invite = yield* findInvite(token);
          if (!invite || !(yield* store.useInvite(hashToken(token), clock.nowMicros()))) throw new AdminAreaError("This link has expired or was already used.");
          yield* store.setPassword(invite.orgId, invite.userId, passwordHash);
          yield* store.deleteSessionsOfUser(invite.userId);
          yield* store.audit({ orgId: invite.orgId, actorUserId: invite.userId, actor: invite.email, action: "user.password_set", target: invite.email, detail: null, address, at: clock.nowMicros() });
        }),
      );
    },

    createKey(actor: AdminActor, input: { name: string; mode: KeyMode }) {
      return run(
        database.transaction(function* () {
          // Keys made in the admin area get the default tier; only the operator sets another.
          const { row, key } = yield* createApiKey(database, clock, { workspaceSlug: actor.session.workspaceSlug, name: input.name, mode: input.mode, tier: "default", createdBy: actor.session.email });
          yield* audit(actor, "api_key.create", `${row.name} (${row.prefix}…)`, `mode ${row.mode}`);
          return { row, key };
        }),
      );
    },

    /** Revokes a key of the administrator's own workspace; another workspace's key is "not found". */
    revokeKey(actor: AdminActor, keyId: string) {
      return run(
        database.transaction(function* () {
          const key = yield* store.key(actor.session.orgId, keyId);
          if (!key) throw new AdminAreaError("No such key in this workspace.");
          if (key.revokedAt !== null) return key;
          yield* revokeApiKey(database, clock, key.id);
          yield* audit(actor, "api_key.revoke", `${key.name} (${key.prefix}…)`);
          return key;
        }),
      );
    },

    addUser(actor: AdminActor, input: { name: string; email: string; role: UserRole; slackUserId: string | null }) {
      return run(
        database.transaction(function* () {
          const user = yield* addUser(database, clock, { workspaceSlug: actor.session.workspaceSlug, name: input.name, email: input.email, role: input.role, slackUserId: input.slackUserId ?? undefined });
          const invite = user.role === "admin" ? yield* issueInvite(database, clock, user, deps.publicUrl) : null;
          yield* audit(actor, "user.add", user.email, `role ${user.role}`);
          if (invite) yield* audit(actor, "user.invite", user.email);
          return { user, invite };
        }),
      );
    },

    updateUser(actor: AdminActor, userId: string, input: { name: string; role: UserRole; slackUserId: string | null }) {
      return run(
        database.transaction(function* () {
          if (userId === actor.session.userId && input.role !== "admin") throw new AdminAreaError("You cannot take away your own administrator role.");
          const before = yield* store.user(actor.session.orgId, userId);
          const user = yield* updateUser(database, actor.session.orgId, userId, input);
          if (user.role !== "admin") yield* store.deleteSessionsOfUser(user.id);
          const changes = [
            before && before.name !== user.name ? `name ${before.name} → ${user.name}` : null,
            before && before.role !== user.role ? `role ${before.role} → ${user.role}` : null,
            before && before.slackUserId !== user.slackUserId ? `Slack user id ${before.slackUserId ?? "none"} → ${user.slackUserId ?? "none"}` : null,
          ].filter(Boolean);
          yield* audit(actor, "user.update", user.email, changes.join("; ") || "no change");
          return user;
        }),
      );
    },

    removeUser(actor: AdminActor, userId: string) {
      return run(
        database.transaction(function* () {
          if (userId === actor.session.userId) throw new AdminAreaError("You cannot remove yourself.");
          const user = yield* removeUser(database, actor.session.orgId, userId);
          yield* audit(actor, "user.remove", user.email);
          return user;
        }),
      );
    },

    reissueInvite(actor: AdminActor, userId: string) {
      return run(
        database.transaction(function* () {
          const user = yield* store.user(actor.session.orgId, userId);
          if (!user) throw new AdminAreaError("No such user in this workspace.");
          const invite = yield* issueInvite(database, clock, { id: user.id, orgId: actor.session.orgId, role: user.role }, deps.publicUrl);
          yield* audit(actor, "user.invite", user.email);
          return { user, invite };
        }),
      );
    },

    updateSettings(actor: AdminActor, input: { slackToken: string | undefined; launchRecap: boolean }) {
      return run(
        database.transaction(function* () {
          const org = yield* updateWorkspace(database, { slug: actor.session.workspaceSlug, slackToken: input.slackToken, launchRecap: input.launchRecap, secretKey: deps.secretKey });
          const detail = [`launch recap ${org.launchRecapEnabled ? "on" : "off"}`, input.slackToken === undefined ? null : input.slackToken === "" ? "Slack token cleared" : "Slack token replaced"];
          yield* audit(actor, "settings.update", null, detail.filter(Boolean).join("; "));
          return org;
        }),
      );
    },
  };
}

export type AdminAreaService = ReturnType<typeof createAdminAreaService>;
