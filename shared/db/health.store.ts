import type { Flow } from "./flow.ts";
import type { Sql } from "./sql.ts";

/** Readiness: does the database answer a query at all. */
export function createHealthStore(sql: Sql) {
  const ping = sql.statement(`SELECT 1 AS ok`);
  return {
    *answers(): Flow<boolean> {
      try {
        return (yield* ping.get()) !== undefined;
      } catch {
        return false;
      }
    },
  };
}
