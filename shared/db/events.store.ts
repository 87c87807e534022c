import type { Flow } from "./flow.ts";
import { events, type EventRow } from "./schema.ts";
import { decoder, insertFields, jsonRows, rowOf, type Sql } from "./sql.ts";

/** The table's columns and the row's fields they hold. */
const COLUMNS = {
  org_id: "orgId",
  position: "position",
  id: "id",
  type: "type",
  object_id: "objectId",
  livemode: "livemode",
  actor_type: "actorType",
  actor_name: "actorName",
  request_id: "requestId",
  idempotency_key: "idempotencyKey",
  data: "data",
  created_at: "createdAt",
} as const satisfies Record<string, keyof EventRow>;

/**
 * The change feed's statements.
 *
 * Positions: a change takes its events' positions with one upsert of its workspace's
 * `event_positions` row, as the last thing it writes, and holds that row's lock until it
 * commits (PostgreSQL's row lock; SQLite's one write lock). So within a workspace positions
 * are handed out in commit order with no gaps: a transaction that rolls back gives its
 * positions back, and a reader that sees position n has every position below n committed and
 * readable. A reader of `position > after` therefore never skips a change that commits late,
 * which a sequence (taken at insert, visible at commit) would. The price: changes of one
 * workspace queue on that row from their last statement to their commit (docs/postgres.md).
 */
export function createEventStore(sql: Sql) {
  const { columns, decode } = rowOf(events);
  const allocate = sql.statement(
    `INSERT INTO event_positions (org_id, last_position) VALUES ($orgId, $count)
     ON CONFLICT (org_id) DO UPDATE SET last_position = event_positions.last_position + excluded.last_position`,
  );
  // A batch's workspaces at once (changes made together), in workspace order like the sequences'.
  const allocateMany = sql.statement(
    `INSERT INTO event_positions (org_id, last_position)
     SELECT counts."orgId", counts."count" FROM ${sql.rowSet("counts", { orgId: "text", count: "integer" })} WHERE true ORDER BY counts."orgId"
     ON CONFLICT (org_id) DO UPDATE SET last_position = event_positions.last_position + excluded.last_position`,
  );
  // A cascade's events go in (`insertRows`) while the position lock is held. Each event's
  // position is read from the row the upsert above just moved (its `position` parameter is its
  // offset from the last position taken), so the change never waits for the upsert's answer:
  // both are sent without waiting, with the change's other writes.
  // `position` holds the row's offset from the workspace's last position (0 for a change's last event).
  const insertMany = insertFields<EventRow>(sql, "events", COLUMNS, "", (column, param, i) =>
    column === "position" ? `(SELECT last_position FROM event_positions WHERE org_id = $org_id_${i}) + ${param}` : param,
  );
  const head = sql.statement<{ last: number }>(`SELECT last_position AS "last" FROM event_positions WHERE org_id = $orgId`, { decode: decoder({ last: "number" }) });
  const oldest = sql.statement<{ position: number | null }>(`SELECT min(position) AS "position" FROM events WHERE org_id = $orgId`, {
    decode: decoder({ position: "number" }),
  });
  const byId = sql.statement(`SELECT ${columns} FROM events WHERE org_id = $orgId AND id = $id`, { decode });
  const atPosition = sql.statement<{ id: string }>(`SELECT id FROM events WHERE org_id = $orgId AND position = $position`);

  // A page: after a position, optionally of one object and of some types. The types are a
  // closed list (at most EVENT_TYPES.length), so one statement per count of them is prepared, lazily.
  // Its cost does not grow with the feed: one object's events are read from (org, object,
  // position); some types, as one run per type from (org, type, position), each cut at the
  // page's size and merged (a single `type IN (…)` scan of the positions would read every
  // event of the other types in between, which for a rare type is most of the feed).
  const pages = new Map<string, ReturnType<typeof sql.statement<EventRow>>>();
  function page(typeCount: number, byObject: boolean) {
    const name = `${typeCount}:${byObject}`;
    let statement = pages.get(name);
    if (!statement) {
      const after = "org_id = $orgId AND position > $after";
      const text =
        byObject || typeCount === 0
          ? `SELECT ${columns} FROM events WHERE ${after}${byObject ? " AND object_id = $objectId" : ""}${typeCount ? ` AND type IN (${typeParams(typeCount).join(", ")})` : ""} ORDER BY position LIMIT $limit`
          : typeParams(typeCount)
              .map((type, i) => `SELECT * FROM (SELECT ${columns} FROM events WHERE ${after} AND type = ${type} ORDER BY position LIMIT $limit) AS run_${i}`)
              .join(" UNION ALL ") + " ORDER BY position LIMIT $limit";
      statement = sql.statement<EventRow>(text, { decode });
      pages.set(name, statement);
    }
    return statement;
  }

  return {
    /**
     * Writes a change's events, in order, at the workspace's next positions. Must be the
     * change's last statements (see above). Sent without waiting (`Statement.send`): their
     * positions are taken by the server, in the order the statements reach it.
     */
    *append(orgId: string, rows: readonly Omit<EventRow, "orgId" | "position">[]): Flow<void> {
      if (rows.length === 0) return;
      yield* allocate.send({ orgId, count: rows.length });
      yield* insertMany.send(rows.map((row, i) => ({ ...row, orgId, position: i + 1 - rows.length })));
    },
    /**
     * `append` for a batch of changes of several workspaces made together: each workspace's
     * events, in the order given, at its next positions, with one statement for the positions.
     */
    *appendAcross(rows: readonly Omit<EventRow, "position">[]): Flow<void> {
      if (rows.length === 0) return;
      const counts = new Map<string, number>();
      for (const row of rows) counts.set(row.orgId, (counts.get(row.orgId) ?? 0) + 1);
      yield* allocateMany.send({ counts: jsonRows([...counts].map(([orgId, count]) => ({ orgId, count }))) });
      const seen = new Map<string, number>();
      yield* insertMany.send(
        rows.map((row) => {
          const nth = (seen.get(row.orgId) ?? 0) + 1;
          seen.set(row.orgId, nth);
          return { ...row, position: nth - counts.get(row.orgId)! };
        }),
      );
    },
    /** The last position handed out (0 before the first event). */
    *head(orgId: string): Flow<number> {
      return (yield* head.get({ orgId }))?.last ?? 0;
    },
    /** The oldest retained position, or null when none is retained. */
    *oldest(orgId: string): Flow<number | null> {
      return (yield* oldest.get({ orgId }))?.position ?? null;
    },
    byId: (orgId: string, id: string) => byId.get({ orgId, id }),
    *idAt(orgId: string, position: number): Flow<string | undefined> {
      return (yield* atPosition.get({ orgId, position }))?.id;
    },
    page(orgId: string, after: number, filter: { types: readonly string[] | null; objectId: string | null }, limit: number): Flow<EventRow[]> {
      const params: Record<string, unknown> = { orgId, after, limit };
      if (filter.objectId !== null) params.objectId = filter.objectId;
      filter.types?.forEach((type, i) => (params[`type_${i}`] = type));
      return page(filter.types?.length ?? 0, filter.objectId !== null).all(params as never);
    },
  };
}

const typeParams = (count: number) => Array.from({ length: count }, (_, i) => `$type_${i}`);

export type EventStore = ReturnType<typeof createEventStore>;
