import { sql } from "drizzle-orm";
import type { Db } from "../shared/db/client.ts";
import { sequences } from "../shared/db/schema.ts";
import type { SequencedKind } from "../shared/domain.ts";

export interface Sequenced {
  displayId: number;
  /** Unique within the workspace and kind, strictly increasing: never `now` twice. */
  createdAt: number;
}

/** Must run inside the write transaction that inserts the record (see shared/db/schema.ts). */
export function createSequences(db: Db) {
  const next = db
    .insert(sequences)
    .values({
      orgId: sql.placeholder("orgId"),
      kind: sql.placeholder("kind"),
      lastDisplayId: 1,
      lastCreatedAt: sql.placeholder("now"),
    })
    .onConflictDoUpdate({
      target: [sequences.orgId, sequences.kind],
      set: {
        lastDisplayId: sql`${sequences.lastDisplayId} + 1`,
        lastCreatedAt: sql`max(excluded.last_created_at, ${sequences.lastCreatedAt} + 1)`,
      },
    })
    .returning({ displayId: sequences.lastDisplayId, createdAt: sequences.lastCreatedAt })
    .prepare();

  return (orgId: string, kind: SequencedKind, now: number): Sequenced => next.get({ orgId, kind, now })!;
}

export type NextSequence = ReturnType<typeof createSequences>;
