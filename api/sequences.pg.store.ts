import { sql } from "drizzle-orm";
import { on, type PgDb } from "../shared/db/postgres.ts";
import { sequences } from "../shared/db/schema.pg.ts";
import type { SequencedKind } from "../shared/domain.ts";
import type { Sequenced } from "./sequences.store.ts";

/**
 * The PostgreSQL adapter of the per-workspace sequence. `INSERT … ON CONFLICT DO UPDATE` takes
 * the row lock of (workspace, kind) until the caller's transaction ends, so concurrent creates
 * from any number of processes queue on it: display ids come out sequential and `created_at`
 * strictly increasing, whatever the clocks of the API hosts say. Call it inside `pgTransaction`.
 */
export function createPgSequences(db: PgDb) {
  return async (orgId: string, kind: SequencedKind, now: number): Promise<Sequenced> => {
    const [row] = await on(db)
      .insert(sequences)
      .values({ orgId, kind, lastDisplayId: 1, lastCreatedAt: now })
      .onConflictDoUpdate({
        target: [sequences.orgId, sequences.kind],
        set: {
          lastDisplayId: sql`${sequences.lastDisplayId} + 1`,
          lastCreatedAt: sql`greatest(excluded.last_created_at, ${sequences.lastCreatedAt} + 1)`,
        },
      })
      .returning({ displayId: sequences.lastDisplayId, createdAt: sequences.lastCreatedAt });
    return row!;
  };
}

