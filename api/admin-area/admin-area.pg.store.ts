import { and, asc, desc, eq, isNotNull, isNull, lt, or, sql } from "drizzle-orm";
import { on, type PgDb } from "../../shared/db/postgres.ts";
import { activityEntries as a, adminSessions as s, apiKeys as k, auditLog, deliveries as d, formSubmissions, invites as i, loginFailures, onboardings as o, organizations as org, users as u } from "../../shared/db/schema.pg.ts";
import type { UserRole } from "../../shared/db/schema.ts";
import type { ActivityView, AuditEntry, AuditView, DeliveryView, KeyView, SessionView, UserView } from "./admin-area.store.ts";

/** Ids compare byte by byte, as in SQLite, whatever the database's collation. */
const binary = (column: { name: string }, table: string) => sql.raw(`"${table}"."${column.name}" COLLATE "C"`);

const keyView = {
  id: k.id, name: k.name, prefix: k.prefix, mode: k.mode, tier: k.rateLimitTier, createdAt: k.createdAt, createdBy: k.createdBy,
  revokedAt: k.revokedAt, lastUsedAt: k.lastUsedAt, lastUsedIp: k.lastUsedIp, requestCount: k.requestCount,
};
const userView = {
  id: u.id, name: u.name, email: u.email, role: u.role, slackUserId: u.slackUserId,
  hasPassword: sql<number>`(${u.passwordHash} IS NOT NULL)::int`, createdAt: u.createdAt,
};

/**
 * The PostgreSQL adapter of the admin area's store, with its SQLite twin's methods and row
 * shapes. Every statement that shows a workspace's data filters on the administrator's
 * workspace id, as there.
 */
export function createPgAdminAreaStore(db: PgDb) {
  const first = <T>(rows: T[]): T | null => rows[0] ?? null;
  return {
    adminsByEmail: async (email: string) =>
      (await on(db)
        .select({ id: u.id, orgId: u.orgId, email: u.email, passwordHash: u.passwordHash })
        .from(u)
        .where(and(eq(u.email, email), eq(u.role, "admin"), isNotNull(u.passwordHash)))
        .orderBy(asc(u.createdAt))) as { id: string; orgId: string; email: string; passwordHash: string }[],
    session: async (tokenHash: string): Promise<SessionView | null> =>
      first(
        await on(db)
          .select({
            tokenHash: s.tokenHash, userId: s.userId, orgId: s.orgId, csrfToken: s.csrfToken, createdAt: s.createdAt, lastSeenAt: s.lastSeenAt,
            email: u.email, userName: u.name, workspaceSlug: org.slug, orgName: org.name,
          })
          .from(s)
          .innerJoin(u, and(eq(u.id, s.userId), eq(u.orgId, s.orgId), eq(u.role, "admin")))
          .innerJoin(org, eq(org.id, s.orgId))
          .where(eq(s.tokenHash, tokenHash)),
      ),
    insertSession: async (row: { tokenHash: string; userId: string; orgId: string; csrfToken: string; now: number; address: string | null }) =>
      void (await on(db).insert(s).values({ tokenHash: row.tokenHash, userId: row.userId, orgId: row.orgId, csrfToken: row.csrfToken, createdAt: row.now, lastSeenAt: row.now, address: row.address })),
    touchSession: async (tokenHash: string, now: number) => void (await on(db).update(s).set({ lastSeenAt: now }).where(eq(s.tokenHash, tokenHash))),
    deleteSession: async (tokenHash: string) => void (await on(db).delete(s).where(eq(s.tokenHash, tokenHash))),
    async purgeExpired(sessionsIdleBefore: number, sessionsCreatedBefore: number, failuresBefore: number) {
      await on(db).delete(s).where(or(lt(s.lastSeenAt, sessionsIdleBefore), lt(s.createdAt, sessionsCreatedBefore)));
      await on(db).delete(loginFailures).where(lt(loginFailures.windowStartedAt, failuresBefore));
    },
    deleteSessionsOfUser: async (userId: string) => void (await on(db).delete(s).where(eq(s.userId, userId))),

    invite: async (tokenHash: string) =>
      first(
        await on(db)
          .select({ userId: i.userId, orgId: i.orgId, expiresAt: i.expiresAt, usedAt: i.usedAt, email: u.email, role: u.role })
          .from(i)
          .innerJoin(u, and(eq(u.id, i.userId), eq(u.orgId, i.orgId)))
          .where(eq(i.tokenHash, tokenHash)),
      ) as { userId: string; orgId: string; expiresAt: number; usedAt: number | null; email: string; role: UserRole } | null,
    useInvite: async (tokenHash: string, now: number) =>
      (await on(db).update(i).set({ usedAt: now }).where(and(eq(i.tokenHash, tokenHash), isNull(i.usedAt))).returning({ t: i.tokenHash })).length === 1,
    setPassword: async (orgId: string, userId: string, passwordHash: string) =>
      void (await on(db).update(u).set({ passwordHash }).where(and(eq(u.orgId, orgId), eq(u.id, userId)))),

    loginFailures: async (bucket: string) =>
      first(await on(db).select({ windowStartedAt: loginFailures.windowStartedAt, failures: loginFailures.failures }).from(loginFailures).where(eq(loginFailures.bucket, bucket))),
    putLoginFailures: async (bucket: string, windowStartedAt: number, failures: number) =>
      void (await on(db)
        .insert(loginFailures)
        .values({ bucket, windowStartedAt, failures })
        .onConflictDoUpdate({ target: loginFailures.bucket, set: { windowStartedAt, failures } })),
    clearLoginFailures: async (bucket: string) => void (await on(db).delete(loginFailures).where(eq(loginFailures.bucket, bucket))),

    audit: async (e: AuditEntry) => void (await on(db).insert(auditLog).values(e)),
    auditPage: async (orgId: string, beforeId: number | null, limit: number): Promise<AuditView[]> =>
      on(db)
        .select({ id: auditLog.id, actor: auditLog.actor, action: auditLog.action, target: auditLog.target, detail: auditLog.detail, address: auditLog.address, at: auditLog.at })
        .from(auditLog)
        .where(and(eq(auditLog.orgId, orgId), beforeId === null ? undefined : lt(auditLog.id, beforeId)))
        .orderBy(desc(auditLog.id))
        .limit(limit),

    claimFormNonce: async (nonce: string, now: number) =>
      (await on(db).insert(formSubmissions).values({ nonce, at: now }).onConflictDoNothing().returning({ n: formSubmissions.nonce })).length === 1,
    purgeFormNonces: async (before: number) => void (await on(db).delete(formSubmissions).where(lt(formSubmissions.at, before))),

    keys: async (orgId: string): Promise<KeyView[]> =>
      on(db).select(keyView).from(k).where(eq(k.orgId, orgId)).orderBy(sql`${k.revokedAt} IS NOT NULL`, desc(k.createdAt)) as Promise<KeyView[]>,
    key: async (orgId: string, keyId: string): Promise<KeyView | null> =>
      first(await on(db).select(keyView).from(k).where(and(eq(k.orgId, orgId), eq(k.id, keyId)))) as KeyView | null,
    users: async (orgId: string): Promise<UserView[]> => on(db).select(userView).from(u).where(eq(u.orgId, orgId)).orderBy(asc(u.createdAt)) as Promise<UserView[]>,
    user: async (orgId: string, userId: string): Promise<UserView | null> =>
      first(await on(db).select(userView).from(u).where(and(eq(u.orgId, orgId), eq(u.id, userId)))) as UserView | null,
    organization: async (orgId: string) =>
      first(
        await on(db)
          .select({ slug: org.slug, name: org.name, launchRecap: sql<number>`${org.launchRecapEnabled}::int`, slackTokenSet: sql<number>`(${org.slackTokenEncrypted} IS NOT NULL)::int` })
          .from(org)
          .where(eq(org.id, orgId)),
      ),
    onboardingId: async (orgId: string, ref: string): Promise<string | null> =>
      first(await on(db).select({ id: o.id }).from(o).where(and(eq(o.orgId, orgId), /^\d+$/.test(ref) ? eq(o.displayId, Number(ref)) : eq(o.id, ref))))?.id ?? null,
    deliveriesPage: async (orgId: string, filter: { onboardingId: string | null; status: string | null }, before: { at: number; id: string } | null, limit: number): Promise<DeliveryView[]> =>
      on(db)
        .select({
          id: d.id, kind: d.kind, onboardingId: d.onboardingId, onboardingDisplayId: o.displayId, target: d.target, status: d.status, detail: d.detail,
          attempts: d.attempts, createdAt: d.createdAt, updatedAt: d.updatedAt,
        })
        .from(d)
        .leftJoin(o, and(eq(o.id, d.onboardingId), eq(o.orgId, d.orgId)))
        .where(
          and(
            eq(d.orgId, orgId),
            filter.onboardingId === null ? undefined : eq(d.onboardingId, filter.onboardingId),
            filter.status === null ? undefined : eq(d.status, filter.status as DeliveryView["status"] as never),
            before === null ? undefined : or(lt(d.createdAt, before.at), and(eq(d.createdAt, before.at), sql`${binary(d.id, "deliveries")} < ${before.id}`)),
          ),
        )
        .orderBy(desc(d.createdAt), sql`${binary(d.id, "deliveries")} DESC`)
        .limit(limit),
    activityPage: async (orgId: string, keyId: string | null, before: { at: number; id: string } | null, limit: number): Promise<ActivityView[]> =>
      on(db)
        .select({ requestId: a.requestId, keyId: a.keyId, actor: a.actor, method: a.method, route: a.route, status: a.status, address: a.address, durationMs: a.durationMs, at: a.at })
        .from(a)
        .where(
          and(
            eq(a.orgId, orgId),
            keyId === null ? undefined : eq(a.keyId, keyId),
            before === null ? undefined : or(lt(a.at, before.at), and(eq(a.at, before.at), sql`${binary(a.requestId, "activity_entries")} < ${before.id}`)),
          ),
        )
        .orderBy(desc(a.at), sql`${binary(a.requestId, "activity_entries")} DESC`)
        .limit(limit),
  };
}
