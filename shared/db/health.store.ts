import type { Db } from "./client.ts";

/** Readiness: does the database answer a query at all. */
export function createHealthStore(db: Db) {
  const ping = db.$client.prepare<{ ok: number }, []>("SELECT 1 AS ok");
  return {
    answers(): boolean {
      try {
        return ping.get() !== null;
      } catch {
        return false;
      }
    },
  };
}
