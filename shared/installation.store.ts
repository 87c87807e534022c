import type { Clock } from "./clock.ts";
import type { Database } from "./db/database.ts";
import type { Flow } from "./db/flow.ts";
import type { Sql } from "./db/sql.ts";
import { newId } from "./ids.ts";

/**
 * The installation's one row (table `installation`): made by the first process that starts on
 * the database, read by every later one, on one machine or many (PostgreSQL), so all of them
 * carry one id.
 */
export function createInstallationStore(sql: Sql) {
  const insert = sql.statement(`INSERT INTO installation (singleton, id, created_at) VALUES (1, $id, $createdAt) ON CONFLICT (singleton) DO NOTHING`);
  const read = sql.statement<{ id: string }>(`SELECT id FROM installation WHERE singleton = 1`);
  return {
    /** The installation's id, made now when no process made it before (two at once agree: the first insert wins). */
    *id(clock: Clock): Flow<string> {
      yield* insert.run({ id: newId("ins"), createdAt: clock.nowMicros() });
      const row = yield* read.get();
      if (!row) throw new Error("the installation row is missing right after its insert");
      return row.id;
    },
  };
}

/** This database's installation id (`ins_…`), made on first use. */
export function installationId(database: Database, clock: Clock): Flow<string> {
  return createInstallationStore(database.sql).id(clock);
}
