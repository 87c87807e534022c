import { and, eq, isNull, lt, sql } from "drizzle-orm";
import { on, type PgDb } from "../../shared/db/postgres.ts";
import { idempotencyKeys as t } from "../../shared/db/schema.pg.ts";
import type { StoredClaim } from "./idempotency.store.ts";

type Ids = { apiKeyId: string; key: string };
const scope = (ids: Ids) => and(eq(t.apiKeyId, ids.apiKeyId), eq(t.key, ids.key));

/**
 * The PostgreSQL adapter of the idempotency keys, with its SQLite twin's methods. The claim is
 * an insert on the primary key (`ON CONFLICT DO NOTHING … RETURNING`): of any number of
 * processes claiming one key at once, exactly one gets the row back; the others wait for its
 * transaction and then see it taken. `find` locks the row for the rest of the transaction.
 */
export function createPgIdempotencyStore(db: PgDb) {
  return {
    claim: async (ids: Ids, fingerprint: string, now: number): Promise<boolean> =>
      (await on(db).insert(t).values({ ...ids, fingerprint, claimedAt: now, createdAt: now }).onConflictDoNothing().returning({ key: t.key })).length === 1,
    find: async (ids: Ids): Promise<StoredClaim | undefined> =>
      (
        await on(db)
          .select({ fingerprint: t.fingerprint, claimedAt: t.claimedAt, completedAt: t.completedAt, responseStatus: t.responseStatus, responseBody: t.responseBody, createdAt: t.createdAt })
          .from(t)
          .where(scope(ids))
          .for("update")
      )[0],
    takeOver: async (ids: Ids, claimedAt: number, now: number): Promise<boolean> =>
      (await on(db).update(t).set({ claimedAt: now }).where(and(scope(ids), isNull(t.completedAt), eq(t.claimedAt, claimedAt))).returning({ key: t.key })).length === 1,
    remove: async (ids: Ids) => void (await on(db).delete(t).where(scope(ids))),
    release: async (ids: Ids) => void (await on(db).delete(t).where(and(scope(ids), isNull(t.completedAt)))),
    complete: async (ids: Ids, status: number, body: string, now: number) =>
      void (await on(db).update(t).set({ completedAt: now, responseStatus: status, responseBody: body }).where(scope(ids))),
    purgeBefore: async (cutoff: number): Promise<number> => {
      const result = await on(db).execute(sql`WITH gone AS (DELETE FROM ${t} WHERE ${lt(t.createdAt, cutoff)} RETURNING 1) SELECT count(*)::int AS n FROM gone`);
      return (result as unknown as { n: number }[])[0]!.n;
    },
  };
}
