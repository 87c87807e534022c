import { count, sql } from "drizzle-orm";
import { withinDeadline, type PgDb } from "./postgres.ts";
import { deliveries } from "./schema.pg.ts";

/** Readiness and metrics on PostgreSQL: an answer within a second, or "not ready". */
export function createPgHealthStore(db: PgDb) {
  return {
    answers: async (): Promise<boolean> => {
      try {
        await withinDeadline(db.execute(sql`SELECT 1`), 1000);
        return true;
      } catch {
        return false;
      }
    },
    deliveriesByKindAndStatus: async () =>
      db.select({ kind: deliveries.kind, status: deliveries.status, n: count() }).from(deliveries).groupBy(deliveries.kind, deliveries.status),
  };
}
