import type { Sql } from "../shared/db/sql.ts";
import { decoder, jsonRows } from "../shared/db/sql.ts";
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

/** A workspace's share of a batch: the first of its `count` display ids and created_at instants (each then one more). */
export interface SequenceBlock {
  firstDisplayId: number;
  firstCreatedAt: number;
}

/**
 * The sequence of a record kind for a batch of records made together (api/http/together.ts):
 * each workspace's row moves by its count in the batch with one statement for the whole batch,
 * taken in workspace order so two batches (of two processes) never hold rows the other waits
 * for. The same promise as `createSequences`: `count` display ids in a row, and `count`
 * created_at instants, each past the last one handed out and past `now`'s.
 */
export function createSequenceBlocks(sql: Sql) {
  const next = sql.statement<{ orgId: string; displayId: number; createdAt: number }>(
    `INSERT INTO sequences (org_id, kind, last_display_id, last_created_at)
     SELECT counts."orgId", CAST($kind AS TEXT), counts."count", CAST($now AS BIGINT) + counts."count" - 1
     FROM ${sql.rowSet("counts", { orgId: "text", count: "integer" })} WHERE true ORDER BY counts."orgId"
     ON CONFLICT (org_id, kind) DO UPDATE SET
       last_display_id = sequences.last_display_id + excluded.last_display_id,
       last_created_at = CASE WHEN excluded.last_created_at > sequences.last_created_at + excluded.last_display_id - 1 THEN excluded.last_created_at
                              ELSE sequences.last_created_at + excluded.last_display_id END
     RETURNING org_id AS "orgId", last_display_id AS "displayId", last_created_at AS "createdAt"`,
    { decode: decoder({ displayId: "number", createdAt: "number" }) },
  );
  return function* (kind: SequencedKind, counts: ReadonlyMap<string, number>, now: number): Flow<Map<string, SequenceBlock>> {
    const rows = yield* next.all({ kind, now, counts: jsonRows([...counts].map(([orgId, count]) => ({ orgId, count }))) });
    return new Map(rows.map((row) => [row.orgId, { firstDisplayId: row.displayId - counts.get(row.orgId)! + 1, firstCreatedAt: row.createdAt - counts.get(row.orgId)! + 1 }]));
  };
}

export type NextSequenceBlocks = ReturnType<typeof createSequenceBlocks>;
