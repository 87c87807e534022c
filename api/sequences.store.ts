import type { Sql } from "../shared/db/sql.ts";
import { decoder } from "../shared/db/sql.ts";
import type { Flow } from "../shared/db/flow.ts";
import type { SequencedKind } from "../shared/domain.ts";

export interface Sequenced {
  displayId: number;
  /** Unique within the workspace and kind, strictly increasing: never `now` twice. */
  createdAt: number;
}

/**
 * The per-workspace sequence of a record kind. Must run inside the write transaction that
 * inserts the record. The upsert takes the (workspace, kind) row's lock until that transaction
 * ends (PostgreSQL's row lock; SQLite's one write lock), so concurrent creates from any number
 * of processes queue on it: display ids come out sequential and never reused, and `created_at`
 * strictly increasing whatever the clocks of the API hosts say.
 */
export function createSequences(sql: Sql) {
  const next = sql.statement<Sequenced>(
    `INSERT INTO sequences (org_id, kind, last_display_id, last_created_at) VALUES ($orgId, $kind, 1, $now)
     ON CONFLICT (org_id, kind) DO UPDATE SET
       last_display_id = sequences.last_display_id + 1,
       last_created_at = CASE WHEN excluded.last_created_at > sequences.last_created_at THEN excluded.last_created_at
                              ELSE sequences.last_created_at + 1 END
     RETURNING last_display_id AS "displayId", last_created_at AS "createdAt"`,
    { decode: decoder({ displayId: "number", createdAt: "number" }) },
  );
  return function* (orgId: string, kind: SequencedKind, now: number): Flow<Sequenced> {
    return (yield* next.get({ orgId, kind, now }))!;
  };
}

export type NextSequence = ReturnType<typeof createSequences>;
