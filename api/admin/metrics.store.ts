import { decoder, type Sql } from "../../shared/db/sql.ts";

/** What /metrics reads from the database. */
export function createMetricsStore(sql: Sql) {
  const byKindAndStatus = sql.statement<{ kind: string; status: string; n: number }>(
    `SELECT kind, status, CAST(count(*) AS INTEGER) AS n FROM deliveries GROUP BY kind, status`,
    { decode: decoder({ n: "number" }) },
  );
  // Retained attempts (WEBHOOK_ATTEMPTS_RETENTION) by what became of them.
  const attempts = sql.statement<{ outcome: string; n: number }>(
    `SELECT CASE WHEN status_code >= 200 AND status_code < 300 THEN 'delivered' WHEN next_attempt_at IS NOT NULL THEN 'retrying' ELSE 'failed' END AS outcome,
       CAST(count(*) AS INTEGER) AS n
     FROM webhook_attempts GROUP BY 1`,
    { decode: decoder({ n: "number" }) },
  );
  // A delivery's outbox row stays unfinished until it is delivered or given up.
  const oldestUndelivered = sql.statement<{ at: number | null }>(`SELECT min(created_at) AS "at" FROM outbox WHERE queue = 'webhooks' AND completed_at IS NULL`, {
    decode: decoder({ at: "number" }),
  });
  return {
    deliveriesByKindAndStatus: () => byKindAndStatus.all(),
    webhookAttemptsByOutcome: () => attempts.all(),
    oldestUndeliveredWebhook: () => oldestUndelivered.get(),
    databaseBytes: () => sql.databaseBytes(),
  };
}
