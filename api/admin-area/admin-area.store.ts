import type { Db } from "../../shared/db/client.ts";
import type { KeyMode, RateLimitTier } from "../../shared/domain.ts";
import type { UserRole } from "../../shared/db/schema.ts";

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
  hasPassword: number;
  createdAt: number;
}

export interface DeliveryView {
  id: string;
  kind: string;
  onboardingId: string;
  onboardingDisplayId: number | null;
  target: string | null;
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
}

export interface AuditEntry {
  orgId: string;
  actorUserId: string | null;
  actor: string;
  action: string;
  target: string | null;
  detail: string | null;
  address: string | null;
  at: number;
}

/** An audit entry as the audit page lists it. */
export type AuditView = Omit<AuditEntry, "orgId" | "actorUserId"> & { id: number };

export function createAdminAreaStore(db: Db) {
  const q = db.$client;
  const sessionSelect = q.prepare<SessionView, [string]>(
    `SELECT s.token_hash AS tokenHash, s.user_id AS userId, s.org_id AS orgId, s.csrf_token AS csrfToken,
            s.created_at AS createdAt, s.last_seen_at AS lastSeenAt,
            u.email AS email, u.name AS userName, o.slug AS workspaceSlug, o.name AS orgName
     FROM admin_sessions s
     JOIN users u ON u.id = s.user_id AND u.org_id = s.org_id AND u.role = 'admin'
     JOIN organizations o ON o.id = s.org_id
     WHERE s.token_hash = ?`,
  );

  return {
    /** Administrators with a password, in any workspace, for sign-in. */
    adminsByEmail: (email: string) =>
      q
        .query(
          `SELECT id, org_id AS orgId, email, password_hash AS passwordHash FROM users
           WHERE email = ? AND role = 'admin' AND password_hash IS NOT NULL ORDER BY created_at`,
        )
        .all(email) as { id: string; orgId: string; email: string; passwordHash: string }[],

    /** A live session joined to a user who is still an administrator of its workspace; else null. */
    session: (tokenHash: string) => sessionSelect.get(tokenHash),
    insertSession: (row: { tokenHash: string; userId: string; orgId: string; csrfToken: string; now: number; address: string | null }) =>
      q
        .query(
          `INSERT INTO admin_sessions (token_hash, user_id, org_id, csrf_token, created_at, last_seen_at, address)
           VALUES (?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(row.tokenHash, row.userId, row.orgId, row.csrfToken, row.now, row.now, row.address),
    touchSession: (tokenHash: string, now: number) => q.query("UPDATE admin_sessions SET last_seen_at = ? WHERE token_hash = ?").run(now, tokenHash),
    deleteSession: (tokenHash: string) => q.query("DELETE FROM admin_sessions WHERE token_hash = ?").run(tokenHash),
    /** Sessions past their idle or absolute lifetime, and sign-in failure windows long over. */
    purgeExpired(sessionsIdleBefore: number, sessionsCreatedBefore: number, failuresBefore: number) {
      q.query("DELETE FROM admin_sessions WHERE last_seen_at < ? OR created_at < ?").run(sessionsIdleBefore, sessionsCreatedBefore);
      q.query("DELETE FROM login_failures WHERE window_started_at < ?").run(failuresBefore);
    },
    deleteSessionsOfUser: (userId: string) => q.query("DELETE FROM admin_sessions WHERE user_id = ?").run(userId),

    invite: (tokenHash: string) =>
      q
        .query(
          `SELECT i.user_id AS userId, i.org_id AS orgId, i.expires_at AS expiresAt, i.used_at AS usedAt, u.email AS email, u.role AS role
           FROM invites i JOIN users u ON u.id = i.user_id AND u.org_id = i.org_id WHERE i.token_hash = ?`,
        )
        .get(tokenHash) as { userId: string; orgId: string; expiresAt: number; usedAt: number | null; email: string; role: UserRole } | null,
    useInvite: (tokenHash: string, now: number) =>
      q.query("UPDATE invites SET used_at = ? WHERE token_hash = ? AND used_at IS NULL").run(now, tokenHash).changes === 1,
    setPassword: (orgId: string, userId: string, passwordHash: string) =>
      q.query("UPDATE users SET password_hash = ? WHERE org_id = ? AND id = ?").run(passwordHash, orgId, userId),

    loginFailures: (bucket: string) =>
      q.query("SELECT window_started_at AS windowStartedAt, failures FROM login_failures WHERE bucket = ?").get(bucket) as
        | { windowStartedAt: number; failures: number }
        | null,
    putLoginFailures: (bucket: string, windowStartedAt: number, failures: number) =>
      q
        .query(
          `INSERT INTO login_failures (bucket, window_started_at, failures) VALUES (?, ?, ?)
           ON CONFLICT (bucket) DO UPDATE SET window_started_at = excluded.window_started_at, failures = excluded.failures`,
        )
        .run(bucket, windowStartedAt, failures),
    clearLoginFailures: (bucket: string) => q.query("DELETE FROM login_failures WHERE bucket = ?").run(bucket),

    audit: (e: AuditEntry) =>
      q
        .query("INSERT INTO audit_log (org_id, actor_user_id, actor, action, target, detail, address, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")
        .run(e.orgId, e.actorUserId, e.actor, e.action, e.target, e.detail, e.address, e.at),
    auditPage: (orgId: string, beforeId: number | null, limit: number) =>
      q
        .query(
          `SELECT id, actor, action, target, detail, address, at FROM audit_log
           WHERE org_id = ? AND (? IS NULL OR id < ?) ORDER BY id DESC LIMIT ?`,
        )
        .all(orgId, beforeId, beforeId, limit) as AuditView[],

    /** Claims a form's one-time nonce; false when that form was already handled. */
    claimFormNonce: (nonce: string, now: number) =>
      q.query("INSERT INTO form_submissions (nonce, at) VALUES (?, ?) ON CONFLICT DO NOTHING").run(nonce, now).changes === 1,
    purgeFormNonces: (before: number) => q.query("DELETE FROM form_submissions WHERE at < ?").run(before),

    keys: (orgId: string) =>
      q
        .query(
          `SELECT id, name, prefix, mode, rate_limit_tier AS tier, created_at AS createdAt, created_by AS createdBy,
                  revoked_at AS revokedAt, last_used_at AS lastUsedAt, last_used_ip AS lastUsedIp, request_count AS requestCount
           FROM api_keys WHERE org_id = ? ORDER BY revoked_at IS NOT NULL, created_at DESC`,
        )
        .all(orgId) as KeyView[],
    key: (orgId: string, keyId: string) =>
      q
        .query(
          `SELECT id, name, prefix, mode, rate_limit_tier AS tier, created_at AS createdAt, created_by AS createdBy,
                  revoked_at AS revokedAt, last_used_at AS lastUsedAt, last_used_ip AS lastUsedIp, request_count AS requestCount
           FROM api_keys WHERE org_id = ? AND id = ?`,
        )
        .get(orgId, keyId) as KeyView | null,

    users: (orgId: string) =>
      q
        .query(
          `SELECT id, name, email, role, slack_user_id AS slackUserId, password_hash IS NOT NULL AS hasPassword, created_at AS createdAt
           FROM users WHERE org_id = ? ORDER BY created_at`,
        )
        .all(orgId) as UserView[],
    user: (orgId: string, userId: string) =>
      q
        .query(
          `SELECT id, name, email, role, slack_user_id AS slackUserId, password_hash IS NOT NULL AS hasPassword, created_at AS createdAt
           FROM users WHERE org_id = ? AND id = ?`,
        )
        .get(orgId, userId) as UserView | null,

    organization: (orgId: string) =>
      q
        .query("SELECT slug, name, launch_recap_enabled AS launchRecap, slack_token_encrypted IS NOT NULL AS slackTokenSet FROM organizations WHERE id = ?")
        .get(orgId) as { slug: string; name: string; launchRecap: number; slackTokenSet: number } | null,

    /** An onboarding of the workspace by `id` or `display_id`. */
    onboardingId: (orgId: string, ref: string) =>
      (
        q.query(`SELECT id FROM onboardings WHERE org_id = ? AND ${/^\d+$/.test(ref) ? "display_id" : "id"} = ?`).get(orgId, ref) as
          | { id: string }
          | null
      )?.id ?? null,
    deliveriesPage: (orgId: string, filter: { onboardingId: string | null; status: string | null }, before: { at: number; id: string } | null, limit: number) =>
      q
        .query(
          `SELECT d.id, d.kind, d.onboarding_id AS onboardingId, o.display_id AS onboardingDisplayId, d.target, d.status, d.detail,
                  d.attempts, d.created_at AS createdAt, d.updated_at AS updatedAt
           FROM deliveries d LEFT JOIN onboardings o ON o.id = d.onboarding_id AND o.org_id = d.org_id
           WHERE d.org_id = ?1 AND (?2 IS NULL OR d.onboarding_id = ?2) AND (?3 IS NULL OR d.status = ?3)
             AND (?4 IS NULL OR d.created_at < ?4 OR (d.created_at = ?4 AND d.id < ?5))
           ORDER BY d.created_at DESC, d.id DESC LIMIT ?6`,
        )
        .all(orgId, filter.onboardingId, filter.status, before?.at ?? null, before?.id ?? null, limit) as DeliveryView[],
    activityPage: (orgId: string, keyId: string | null, before: { at: number; id: string } | null, limit: number) =>
      q
        .query(
          `SELECT request_id AS requestId, key_id AS keyId, actor, method, route, status, address, duration_ms AS durationMs, at
           FROM activity_entries
           WHERE org_id = ?1 AND (?2 IS NULL OR key_id = ?2)
             AND (?3 IS NULL OR at < ?3 OR (at = ?3 AND request_id < ?4))
           ORDER BY at DESC, request_id DESC LIMIT ?5`,
        )
        .all(orgId, keyId, before?.at ?? null, before?.id ?? null, limit) as ActivityView[],
  };
}

