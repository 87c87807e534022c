import { decoder, type Sql } from "../../shared/db/sql.ts";

/** What /metrics reads from the database. */
export function createMetricsStore(sql: Sql) {
  const byKindAndStatus = sql.statement<{ kind: string; status: string; n: number }>(
    `SELECT kind, status, CAST(count(*) AS INTEGER) AS n FROM deliveries GROUP BY kind, status`,
    { decode: decoder({ n: "number" }) },
  );
  return {
    deliveriesByKindAndStatus: () => byKindAndStatus.all(),
    databaseBytes: () => sql.databaseBytes(),
  };
}
