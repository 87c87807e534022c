import type { Flow } from "../../shared/db/flow.ts";
import { decoder, type Sql } from "../../shared/db/sql.ts";
import type { KeyMode, RateLimitTier } from "../../shared/domain.ts";
import type { UserRole } from "../../shared/db/schema.ts";
import { createAuditStore, type AuditEntry } from "../../shared/audit.store.ts";
import { createActivityStore } from "../../shared/db/activity.store.ts";

/**
 * Every SQL statement of the admin area. Whatever shows a workspace's data takes the signed-in
 * administrator's workspace id and filters on it in the statement itself.
 */

export interface SessionView {
  tokenHash: string;
  userId: string;
  orgId: string;
  csrfToken: string;
  createdAt: number;
  lastSeenAt: number;
  email: string;
  userName: string;
  workspaceSlug: string;
  orgName: string;
}

export interface KeyView {
  id: string;
  name: string;
  prefix: string;
  mode: KeyMode;
  tier: RateLimitTier;
  createdAt: number;
  createdBy: string | null;
  revokedAt: number | null;
  lastUsedAt: number | null;
  lastUsedIp: string | null;
  requestCount: number;
}

export interface UserView {
  id: string;
  name: string;
  email: string;
  role: UserRole;
  slackUserId: string | null;
  hasPassword: boolean;
  createdAt: number;
}

export interface DeliveryView {
  id: string;
  kind: string;
  onboardingId: string;
  onboardingDisplayId: number | null;
  /** The onboarding's customer, by name. */
  customerName: string | null;
  /** Whom or what the delivery went to: a user's id or Slack id, a customer's id, an e-mail address. */
  target: string | null;
  /** When the target is a customer of the workspace: its name and number. */
  targetCustomerName: string | null;
  targetCustomerDisplayId: number | null;
  status: string;
  detail: string | null;
  attempts: number;
  createdAt: number;
  updatedAt: number;
}

export interface ActivityView {
  requestId: string;
  keyId: string;
  actor: string;
  method: string;
  route: string;
  status: number;
  address: string | null;
  durationMs: number;
  at: number;
  /** Calls the entry stands for: a key's refusals within one second are one entry. */
  repeatCount: number;
}

export type { AuditEntry };

/** An audit entry as the audit page lists it, with the webhook endpoint an id names (older entries named it by id). */
export type AuditView = Omit<AuditEntry, "orgId"> & { id: number; targetEndpointUrl: string | null };

export function createAdminAreaStore(sql: Sql) {
  const n = (...keys: string[]) => decoder<never>(Object.fromEntries(keys.map((k) => [k, "number"])));
  const adminsByEmail = sql.statement<{ id: string; orgId: string; email: string; passwordHash: string }>(
    `SELECT id, org_id AS "orgId", email, password_hash AS "passwordHash" FROM users
     WHERE email = $email AND role = 'admin' AND password_hash IS NOT NULL ORDER BY created_at`,
  );
  const session = sql.statement<SessionView>(
    `SELECT s.token_hash AS "tokenHash", s.user_id AS "userId", s.org_id AS "orgId", s.csrf_token AS "csrfToken",
            s.created_at AS "createdAt", s.last_seen_at AS "lastSeenAt",
            u.email AS email, u.name AS "userName", o.slug AS "workspaceSlug", o.name AS "orgName"
     FROM admin_sessions s
     JOIN users u ON u.id = s.user_id AND u.org_id = s.org_id AND u.role = 'admin'
     JOIN organizations o ON o.id = s.org_id
     WHERE s.token_hash = $tokenHash`,
    { decode: n("createdAt", "lastSeenAt") },
  );
  const insertSession = sql.statement(
    `INSERT INTO admin_sessions (token_hash, user_id, org_id, csrf_token, created_at, last_seen_at, address)
     VALUES ($tokenHash, $userId, $orgId, $csrfToken, $now, $now, $address)`,
  );
  const touchSession = sql.statement(`UPDATE admin_sessions SET last_seen_at = $now WHERE token_hash = $tokenHash`);
  const deleteSession = sql.statement(`DELETE FROM admin_sessions WHERE token_hash = $tokenHash`);
  const purgeSessions = sql.statement(`DELETE FROM admin_sessions WHERE last_seen_at < $idleBefore OR created_at < $createdBefore`);
  const purgeFailures = sql.statement(`DELETE FROM login_failures WHERE window_started_at < $before`);
  const deleteSessionsOfUser = sql.statement(`DELETE FROM admin_sessions WHERE user_id = $userId`);
  const invite = sql.statement<{ userId: string; orgId: string; expiresAt: number; usedAt: number | null; email: string; role: UserRole }>(
    `SELECT i.user_id AS "userId", i.org_id AS "orgId", i.expires_at AS "expiresAt", i.used_at AS "usedAt", u.email AS email, u.role AS role
     FROM invites i JOIN users u ON u.id = i.user_id AND u.org_id = i.org_id WHERE i.token_hash = $tokenHash`,
    { decode: n("expiresAt", "usedAt"), lock: "update" },
  );
  const useInvite = sql.statement(`UPDATE invites SET used_at = $now WHERE token_hash = $tokenHash AND used_at IS NULL`);
  const setPassword = sql.statement(`UPDATE users SET password_hash = $passwordHash WHERE org_id = $orgId AND id = $userId`);
  const loginFailures = sql.statement<{ windowStartedAt: number; failures: number }>(
    `SELECT window_started_at AS "windowStartedAt", failures FROM login_failures WHERE bucket = $bucket`,
    { decode: n("windowStartedAt"), lock: "update" },
  );
  const putLoginFailures = sql.statement(
    `INSERT INTO login_failures (bucket, window_started_at, failures) VALUES ($bucket, $windowStartedAt, $failures)
     ON CONFLICT (bucket) DO UPDATE SET window_started_at = excluded.window_started_at, failures = excluded.failures`,
  );
  const clearLoginFailures = sql.statement(`DELETE FROM login_failures WHERE bucket = $bucket`);
  const auditLog = createAuditStore(sql);
  const auditPage = sql.statement<AuditView>(
    `SELECT a.id, a.actor_user_id AS "actorUserId", a.actor, a.action, a.target, a.detail, a.address, a.at,
            (SELECT w.url FROM webhook_endpoints w WHERE w.id = a.target AND w.org_id = a.org_id) AS "targetEndpointUrl"
     FROM audit_log a
     WHERE a.org_id = $orgId AND (CAST($beforeId AS BIGINT) IS NULL OR a.id < $beforeId) ORDER BY a.id DESC LIMIT $limit`,
    { decode: n("id", "at") },
  );
  const claimFormNonce = sql.statement(`INSERT INTO form_submissions (nonce, at) VALUES ($nonce, $now) ON CONFLICT DO NOTHING`);
  const purgeFormNonces = sql.statement(`DELETE FROM form_submissions WHERE at < $before`);
  const keyColumns = `id, name, prefix, mode, rate_limit_tier AS tier, created_at AS "createdAt", created_by AS "createdBy",
                      revoked_at AS "revokedAt", last_used_at AS "lastUsedAt", last_used_ip AS "lastUsedIp", request_count AS "requestCount"`;
  const keyDecode = n("createdAt", "revokedAt", "lastUsedAt");
  const keys = sql.statement<KeyView>(`SELECT ${keyColumns} FROM api_keys WHERE org_id = $orgId ORDER BY revoked_at IS NOT NULL, created_at DESC`, { decode: keyDecode });
  const key = sql.statement<KeyView>(`SELECT ${keyColumns} FROM api_keys WHERE org_id = $orgId AND id = $keyId`, { decode: keyDecode });
  const userColumns = `id, name, email, role, slack_user_id AS "slackUserId", password_hash IS NOT NULL AS "hasPassword", created_at AS "createdAt"`;
  const userDecode = decoder<UserView>({ hasPassword: "boolean", createdAt: "number" });
  const users = sql.statement(`SELECT ${userColumns} FROM users WHERE org_id = $orgId ORDER BY created_at`, { decode: userDecode });
  const user = sql.statement(`SELECT ${userColumns} FROM users WHERE org_id = $orgId AND id = $userId`, { decode: userDecode });
  const organization = sql.statement<{ slug: string; name: string; launchRecap: boolean; slackTokenSet: boolean }>(
    `SELECT slug, name, launch_recap_enabled AS "launchRecap", slack_token_encrypted IS NOT NULL AS "slackTokenSet" FROM organizations WHERE id = $orgId`,
    { decode: decoder({ launchRecap: "boolean", slackTokenSet: "boolean" }) },
  );
  const onboardingById = sql.statement<{ id: string }>(`SELECT id FROM onboardings WHERE org_id = $orgId AND id = $ref`);
  const onboardingByDisplayId = sql.statement<{ id: string }>(`SELECT id FROM onboardings WHERE org_id = $orgId AND display_id = $ref`);
  // Ids compare byte by byte (COLLATE "C"), as SQLite compares them, whatever PostgreSQL's collation.
  const deliveriesPage = sql.statement<DeliveryView>(
    `SELECT d.id, d.kind, d.onboarding_id AS "onboardingId", o.display_id AS "onboardingDisplayId",
            (SELECT c.name FROM customers c WHERE c.id = o.customer_id AND c.org_id = d.org_id) AS "customerName",
            d.target, tc.name AS "targetCustomerName", tc.display_id AS "targetCustomerDisplayId", d.status, d.detail,
            d.attempts, d.created_at AS "createdAt", d.updated_at AS "updatedAt"
     FROM deliveries d LEFT JOIN onboardings o ON o.id = d.onboarding_id AND o.org_id = d.org_id
       LEFT JOIN customers tc ON tc.id = d.target AND tc.org_id = d.org_id
     WHERE d.org_id = $orgId AND (CAST($onboardingId AS TEXT) IS NULL OR d.onboarding_id = $onboardingId) AND (CAST($status AS TEXT) IS NULL OR d.status = $status)
       AND (CAST($beforeAt AS BIGINT) IS NULL OR d.created_at < $beforeAt OR (d.created_at = $beforeAt AND d.id COLLATE "C" < $beforeId))
     ORDER BY d.created_at DESC, d.id COLLATE "C" DESC LIMIT $limit`,
    { decode: n("createdAt", "updatedAt") },
  );
  // Rows and pages together (shared/db/activity.store.ts).
  const activity = createActivityStore(sql);

  return {
    /** Administrators with a password, in any workspace, for sign-in. */
    adminsByEmail: (email: string) => adminsByEmail.all({ email }),
    /** A live session joined to a user who is still an administrator of its workspace; else undefined. */
    session: (tokenHash: string) => session.get({ tokenHash }),
    insertSession: (row: { tokenHash: string; userId: string; orgId: string; csrfToken: string; now: number; address: string | null }) => insertSession.run(row),
    touchSession: (tokenHash: string, now: number) => touchSession.run({ tokenHash, now }),
    deleteSession: (tokenHash: string) => deleteSession.run({ tokenHash }),
    /** Sessions past their idle or absolute lifetime, and sign-in failure windows long over. */
    *purgeExpired(sessionsIdleBefore: number, sessionsCreatedBefore: number, failuresBefore: number): Flow<void> {
      yield* purgeSessions.run({ idleBefore: sessionsIdleBefore, createdBefore: sessionsCreatedBefore });
      yield* purgeFailures.run({ before: failuresBefore });
    },
    deleteSessionsOfUser: (userId: string) => deleteSessionsOfUser.run({ userId }),

    /** An invite, locked for the rest of the transaction (the link is used once). */
    invite: (tokenHash: string) => invite.get({ tokenHash }),
    *useInvite(tokenHash: string, now: number): Flow<boolean> {
      return (yield* useInvite.run({ tokenHash, now })) === 1;
    },
    setPassword: (orgId: string, userId: string, passwordHash: string) => setPassword.run({ orgId, userId, passwordHash }),

    /** A bucket's failures, locked for the rest of the transaction (counted by one request at a time). */
    loginFailures: (bucket: string) => loginFailures.get({ bucket }),
    putLoginFailures: (bucket: string, windowStartedAt: number, failures: number) => putLoginFailures.run({ bucket, windowStartedAt, failures }),
    clearLoginFailures: (bucket: string) => clearLoginFailures.run({ bucket }),

    audit: auditLog.insert,
    auditPage: (orgId: string, beforeId: number | null, limit: number) => auditPage.all({ orgId, beforeId, limit }),

    /** Claims a form's one-time nonce; false when that form was already handled. */
    *claimFormNonce(nonce: string, now: number): Flow<boolean> {
      return (yield* claimFormNonce.run({ nonce, now })) === 1;
    },
    purgeFormNonces: (before: number) => purgeFormNonces.run({ before }),

    keys: (orgId: string) => keys.all({ orgId }),
    key: (orgId: string, keyId: string) => key.get({ orgId, keyId }),
    users: (orgId: string) => users.all({ orgId }),
    user: (orgId: string, userId: string) => user.get({ orgId, userId }),
    organization: (orgId: string) => organization.get({ orgId }),

    /** An onboarding of the workspace by `id` or `display_id`. */
    *onboardingId(orgId: string, ref: string): Flow<string | null> {
      const row = /^\d{1,15}$/.test(ref) ? yield* onboardingByDisplayId.get({ orgId, ref: Number(ref) }) : yield* onboardingById.get({ orgId, ref });
      return row?.id ?? null;
    },
    deliveriesPage: (orgId: string, filter: { onboardingId: string | null; status: string | null }, before: { at: number; id: string } | null, limit: number) =>
      deliveriesPage.all({ orgId, ...filter, beforeAt: before?.at ?? null, beforeId: before?.id ?? null, limit }),
    *activityPage(orgId: string, keyId: string | null, before: { at: number; id: string } | null, limit: number): Flow<ActivityView[]> {
      const entries = yield* activity.newest(orgId, keyId, before && { at: before.at, requestId: before.id }, limit);
      return entries.map((e) => ({
        requestId: e.request_id,
        keyId: e.key_id,
        actor: e.actor,
        method: e.method,
        route: e.route,
        status: e.status,
        address: e.address,
        durationMs: e.duration_ms,
        at: e.at,
        repeatCount: e.repeat_count,
      }));
    },
  };
}
