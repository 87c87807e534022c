import { and, eq, isNull, sql } from "drizzle-orm";
import { setParam, type Db } from "../../shared/db/client.ts";
import { idempotencyKeys } from "../../shared/db/schema.ts";

const p = sql.placeholder;
const t = idempotencyKeys;
const scope = and(eq(t.apiKeyId, p("apiKeyId")), eq(t.key, p("key")));

export interface StoredClaim {
  fingerprint: string;
  claimedAt: number;
  completedAt: number | null;
  responseStatus: number | null;
  responseBody: string | null;
  createdAt: number;
}

type Ids = { apiKeyId: string; key: string };

/** Idempotency keys: claimed by inserting on the primary key, never select-then-insert. */
export function createIdempotencyStore(db: Db) {
  const claim = db
    .insert(t)
    .values({ apiKeyId: p("apiKeyId"), key: p("key"), fingerprint: p("fingerprint"), claimedAt: p("now"), createdAt: p("now") })
    .onConflictDoNothing()
    .returning({ key: t.key })
    .prepare();
  const find = db
    .select({ fingerprint: t.fingerprint, claimedAt: t.claimedAt, completedAt: t.completedAt, responseStatus: t.responseStatus, responseBody: t.responseBody, createdAt: t.createdAt })
    .from(t)
    .where(scope)
    .prepare();
  const takeOver = db
    .update(t)
    .set({ claimedAt: setParam("now") })
    .where(and(scope, isNull(t.completedAt), eq(t.claimedAt, p("claimedAt"))))
    .returning({ key: t.key })
    .prepare();
  const remove = db.delete(t).where(scope).prepare();
  const release = db.delete(t).where(and(scope, isNull(t.completedAt))).prepare();
  const complete = db
    .update(t)
    .set({ completedAt: setParam("now"), responseStatus: setParam("status"), responseBody: setParam("body") })
    .where(scope)
    .prepare();
  // A purge may remove thousands of rows: counted by the driver, not returned one by one.
  const purge = db.$client.prepare(`DELETE FROM "idempotency_keys" WHERE "${t.createdAt.name}" < $cutoff`);

  return {
    /** True when this call inserted the claim. */
    claim: (ids: Ids, fingerprint: string, now: number): boolean => claim.get({ ...ids, fingerprint, now }) !== undefined,
    find: (ids: Ids): StoredClaim | undefined => find.get(ids),
    takeOver: (ids: Ids, claimedAt: number, now: number): boolean => takeOver.get({ ...ids, claimedAt, now }) !== undefined,
    remove: (ids: Ids) => void remove.run(ids),
    release: (ids: Ids) => void release.run(ids),
    complete: (ids: Ids, status: number, body: string, now: number) => void complete.run({ ...ids, status, body, now }),
    purgeBefore: (cutoff: number): number => purge.run({ cutoff }).changes,
  };
}

export type IdempotencyStore = ReturnType<typeof createIdempotencyStore>;
