import { getTableColumns } from "drizzle-orm";
import type { Flow } from "../../shared/db/flow.ts";
import { onboardings as o, type OnboardingRow } from "../../shared/db/schema.ts";
import { col, decoder, insertRows, jsonList, rowOf, updateRows, type RowSetType, type Sql, type Statement } from "../../shared/db/sql.ts";

const IMMUTABLE = new Set<string>(["id", "orgId", "customerId", "displayId", "createdAt", "startedAt", "deletedAt"]);
/** Distinct sets of changed columns given an UPDATE of their own (see `update`). */
const MAX_UPDATE_SHAPES = 64;

/** A page's row as far as a list of rendered resources needs it (see `pageVersions`). */
export interface OnboardingVersion {
  id: string;
  updatedAt: number;
  createdAt: number;
}
const decodeVersion = decoder<OnboardingVersion>({ id: "text", updatedAt: "number", createdAt: "number" });
/** A record's version as a GET reads it (see `versionById`): whose it is, and at which version. */
export interface RecordVersion {
  orgId: string;
  id: string;
  updatedAt: number;
}
const decodeRecordVersion = decoder<RecordVersion>({ orgId: "text", id: "text", updatedAt: "number" });

export interface PageFilter {
  phase?: string | undefined;
  state?: string | undefined;
}

/**
 * Every onboarding statement. `byId` and `byDisplayId` lock the row inside a transaction: a
 * PATCH reads, decides (did the phase change?) and writes, and two identical PATCHes at once
 * must apply once — the second reads what the first committed and finds nothing to change.
 */
export function createOnboardingStore(sql: Sql) {
  const { columns, decode } = rowOf(o);
  const live = "org_id = $orgId AND deleted_at IS NULL";
  const byId = sql.statement(`SELECT ${columns} FROM onboardings WHERE ${live} AND id = $id`, { decode, lock: "update" });
  const byDisplayId = sql.statement(`SELECT ${columns} FROM onboardings WHERE ${live} AND display_id = $displayId`, { decode, lock: "update" });
  // A batch's onboardings, locked in id order: two batches (of two API processes) lock their rows in the same order.
  const byIds = sql.statement(
    `SELECT ${columns} FROM onboardings WHERE deleted_at IS NULL AND ${sql.oneOf("id", "ids")} ORDER BY id`,
    { decode, lock: "update" },
  );
  // A GET's lookup by id outside a transaction is made with the other GETs of its moment, in one
  // statement (`readTogether`; PostgreSQL only: a SQLite read has no round trip to share). Each
  // workspace's rows are its own: the statement reads the ids asked, and a row answers only the
  // GET of its workspace.
  const byIdsOfGets = <R extends { id: string; orgId: string }>(one: (p: { orgId: string; id: string }) => Flow<R | undefined>, many: Statement<R>) =>
    sql.readTogether(one, (ps) => many.all({ ids: jsonList(ps.map((p) => p.id)) }), (row, p) => row.id === p.id && row.orgId === p.orgId);
  const byIdTogether = byIdsOfGets((p) => byId.get(p), byIds);
  // A GET's id and version (api/http/rendered.ts): by id made together like `byIdTogether`, by
  // display_id one statement each, like `byDisplayId`.
  const version = `SELECT org_id AS "orgId", id, updated_at AS "updatedAt" FROM onboardings WHERE`;
  // On SQLite the GETs of one event-loop turn read their versions in one read transaction (`turnSnapshot`).
  const versionById = sql.statement(`${version} ${live} AND id = $id`, { decode: decodeRecordVersion, turnSnapshot: true });
  const versionByDisplayId = sql.statement(`${version} ${live} AND display_id = $displayId`, { decode: decodeRecordVersion, turnSnapshot: true });
  const versionsByIds = sql.statement(`${version} deleted_at IS NULL AND ${sql.oneOf("id", "ids")}`, { decode: decodeRecordVersion });
  const versionByIdTogether = byIdsOfGets((p) => versionById.get(p), versionsByIds);
  // The workspace's onboarding revision, which triggers move forward with every change of one
  // of its onboardings: read once per commit of any connection and kept until the next. Only
  // where a read can be kept so (SQLite in WAL mode) is it worth a table, triggers and a read:
  // only SQLite's migrations make them (drizzle/sqlite/0014_onboarding_revisions.sql).
  const revisionOf = sql.keepsUntilCommit
    ? sql.statement<{ revision: number }>(`SELECT revision FROM onboarding_revisions WHERE org_id = $orgId`, { keptUntilCommit: true, turnSnapshot: true })
    : null;

  // One statement per scope and filter combination, each served by its own index (see the
  // schema), so a page costs the same however many rows the workspace holds. Each comes twice:
  // the rows whole, and only their ids and versions, for a page whose resources are already
  // rendered (api/http/rendered.ts; three values a row for the driver to read instead of 29).
  const pages = new Map<string, ReturnType<typeof sql.statement<OnboardingRow>>>();
  const pageVersions = new Map<string, ReturnType<typeof sql.statement<OnboardingVersion>>>();
  for (const scope of ["workspace", "customer"] as const) {
    for (const phase of [false, true]) {
      for (const state of [false, true]) {
        const where = [live, "created_at < $before"];
        if (scope === "customer") where.push("customer_id = $customerId");
        if (phase) where.push("phase = $phase");
        if (state) where.push("state = $state");
        const rest = `FROM onboardings WHERE ${where.join(" AND ")} ORDER BY created_at DESC LIMIT $limit`;
        pages.set(`${scope}:${phase}:${state}`, sql.statement(`SELECT ${columns} ${rest}`, { decode }));
        pageVersions.set(`${scope}:${phase}:${state}`, sql.statement(`SELECT id, updated_at AS "updatedAt", created_at AS "createdAt" ${rest}`, { decode: decodeVersion }));
      }
    }
  }
  const runPage = <R>(statements: Map<string, ReturnType<typeof sql.statement<R>>>, orgId: string, customerId: string | null, filter: PageFilter, before: number, limit: number) => {
    const params: Record<string, string | number> = { orgId, before, limit };
    if (customerId !== null) params.customerId = customerId;
    if (filter.phase !== undefined) params.phase = filter.phase;
    if (filter.state !== undefined) params.state = filter.state;
    return statements.get(`${customerId === null ? "workspace" : "customer"}:${filter.phase !== undefined}:${filter.state !== undefined}`)!.all(params);
  };

  // A PATCH computes the whole next row in the service; the store writes the columns that
  // differ from the row it read.
  const all = Object.entries(getTableColumns(o));
  const inserted = all.filter(([key]) => key !== "deletedAt");
  const keyOf = new Map(inserted.map(([key, c]) => [c.name, key as keyof Omit<OnboardingRow, "deletedAt">]));
  const insert = sql.statement(`INSERT INTO onboardings (${inserted.map(([, c]) => col(c)).join(", ")}) VALUES (${inserted.map(([key]) => `$${key}`).join(", ")})`);
  const insertMany = insertRows(sql, "onboardings", inserted.map(([, c]) => c.name), (row: Omit<OnboardingRow, "deletedAt">, column) => row[keyOf.get(column)!]);
  const mutable = all.filter(([key]) => !IMMUTABLE.has(key)).map(([key]) => key as keyof OnboardingRow);
  /**
   * An UPDATE per set of changed columns, made when first needed: SQLite rewrites a row's entry
   * in every index that names a column of the SET list (or of its WHERE, for a partial index),
   * changed or not, and an onboarding has ten. A phase change writes its phase, its times and
   * its SLA clock, which three of the indexes name; with every column in the list it rewrote
   * all ten (a phase change's UPDATE, timed in place on SQLite: 26.6 µs with every column,
   * 19.8 µs with the changed ones; bench/RESULTS.md, #26's tenth pass). The sets clients make
   * are few in practice; past `MAX_UPDATE_SHAPES` of them the others share the statement that
   * writes every column.
   */
  const updates = new Map<string, ReturnType<typeof sql.statement>>();
  const columnOf = getTableColumns(o);
  const updateOf = (keys: readonly (keyof OnboardingRow)[]) =>
    sql.statement(`UPDATE onboardings SET ${keys.map((key) => `${col(columnOf[key])} = $${key}`).join(", ")} WHERE id = $id`);
  const updateAll = updateOf(mutable);
  /**
   * A batch's rows that changed the same columns, written by one statement (`updateRows`) made
   * when that set is first seen, with the same bound on their number as the one-row statements.
   */
  const typeOf = (key: keyof OnboardingRow): RowSetType => {
    const column = columnOf[key];
    return column.dataType === "boolean" ? "boolean" : column.getSQLType() === "text" ? "text" : "integer";
  };
  const updatesOfMany = new Map<string, (rows: readonly OnboardingRow[]) => Flow<void>>();
  const updateManyOf = (keys: readonly (keyof OnboardingRow)[]) => {
    const names = new Map(keys.map((key) => [columnOf[key].name, key]));
    return updateRows(sql, "onboardings", "id", Object.fromEntries(keys.map((key) => [columnOf[key].name, typeOf(key)])), (row: OnboardingRow, column) =>
      column === "id" ? row.id : row[names.get(column)!],
    );
  };
  const updateAllMany = updateManyOf(mutable);
  /** The columns `next` changed from `current`: the key of the statement that writes them. */
  const changedOf = (current: OnboardingRow, next: OnboardingRow) => mutable.filter((key) => next[key] !== current[key]);
  /**
   * The write for a set of changed columns, made when the set is first seen; for no column
   * (callers write changes only; exact all the same) and past `MAX_UPDATE_SHAPES` sets, the one
   * that writes every column.
   */
  function forShape<W>(made: Map<string, W>, keys: readonly (keyof OnboardingRow)[], make: (keys: readonly (keyof OnboardingRow)[]) => W, all: W): W {
    if (keys.length === 0) return all;
    const shape = keys.join(",");
    let write = made.get(shape);
    if (!write && made.size < MAX_UPDATE_SHAPES) made.set(shape, (write = make(keys)));
    return write ?? all;
  }
  const softDelete = sql.statement(`UPDATE onboardings SET deleted_at = $now WHERE id = $id`);

  return {
    byId: (orgId: string, id: string) => byIdTogether({ orgId, id }),
    byDisplayId: (orgId: string, displayId: number) => byDisplayId.get({ orgId, displayId }),
    /** A live onboarding's id and version (`updated_at`), for a GET answered from its rendered text. */
    versionById: (orgId: string, id: string) => versionByIdTogether({ orgId, id }),
    versionByDisplayId: (orgId: string, displayId: number) => versionByDisplayId.get({ orgId, displayId }),
    /**
     * The workspace's onboarding revision (0 before its first change), which moves forward in
     * the transaction of every change or deletion of one of its onboardings, by any writer; kept
     * in memory until the next commit. Null where it cannot be kept so (PostgreSQL).
     */
    revision: revisionOf && (function* (orgId: string): Flow<number> {
      return (yield* revisionOf.get({ orgId }))?.revision ?? 0;
    }),
    /** Live onboardings by id, of any workspace (the caller tells whose each is), locked like `byId`. */
    byIds: (ids: readonly string[]) => byIds.all({ ids: jsonList(ids) }),
    page: (orgId: string, customerId: string | null, filter: PageFilter, before: number, limit: number) => runPage(pages, orgId, customerId, filter, before, limit),
    /** The same page's ids, versions (`updated_at`) and `created_at`, in the same order. */
    pageVersions: (orgId: string, customerId: string | null, filter: PageFilter, before: number, limit: number) =>
      runPage(pageVersions, orgId, customerId, filter, before, limit),
    // Sent without waiting (`send`): nothing reads their answer, and a change's writes travel together.
    insert: (row: Omit<OnboardingRow, "deletedAt">) => insert.send(row),
    /** A batch's new onboardings (made together: api/onboardings/onboardings.together.ts). */
    insertMany: (rows: readonly Omit<OnboardingRow, "deletedAt">[]) => insertMany.send(rows),
    /** `next` as the change made it from `current`, the row read (and locked) in the same transaction. */
    update: (current: OnboardingRow, next: OnboardingRow) => forShape(updates, changedOf(current, next), updateOf, updateAll).send(next),
    /**
     * `update` for a batch's rows (changes made together: api/onboardings/onboarding-updates.together.ts),
     * each read (and locked) in the same transaction: one statement per set of changed columns.
     */
    *updateMany(changes: readonly { current: OnboardingRow; next: OnboardingRow }[]): Flow<void> {
      const byShape = new Map<string, { keys: (keyof OnboardingRow)[]; rows: OnboardingRow[] }>();
      for (const { current, next } of changes) {
        const keys = changedOf(current, next);
        const shape = keys.join(",");
        const group = byShape.get(shape);
        if (group) group.rows.push(next);
        else byShape.set(shape, { keys, rows: [next] });
      }
      for (const { keys, rows } of byShape.values()) {
        if (rows.length === 1) yield* forShape(updates, keys, updateOf, updateAll).send(rows[0]);
        else yield* forShape(updatesOfMany, keys, updateManyOf, updateAllMany)(rows);
      }
    },
    softDelete: (id: string, now: number) => softDelete.run({ id, now }),
  };
}

export type OnboardingStore = ReturnType<typeof createOnboardingStore>;
