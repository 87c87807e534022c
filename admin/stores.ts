import type { Database } from "../shared/db/database.ts";
import type { MaybePromise } from "../shared/db/flow.ts";
import { pgReportsStore } from "./reports.pg.store.ts";
import { reportsStore } from "./reports.store.ts";

/** A store of statements taking the driver first, bound to one handle: plain answers on SQLite, promises on PostgreSQL. */
type Bound<S> = {
  [K in keyof S]: S[K] extends (db: never, ...args: infer A) => infer R ? (...args: A) => MaybePromise<Awaited<R>> : never;
};

/**
 * Every store the operator's command line uses (shared/workspaces.ts binds its own). The one
 * place the command line chooses adapters by engine; the PostgreSQL twin must keep the SQLite
 * adapter's methods and rows, or the assignment below fails the type check.
 */
export interface AdminStores {
  reports: Bound<typeof reportsStore>;
}

const bound = new WeakMap<Database, AdminStores>();

function bind<S extends Record<string, (db: never, ...args: never[]) => unknown>>(impl: S, db: unknown): Bound<S> {
  return Object.fromEntries(Object.entries(impl).map(([name, fn]) => [name, (...args: unknown[]) => (fn as (...a: unknown[]) => unknown)(db, ...args)])) as Bound<S>;
}

/** The command line's stores over an open database, built once per handle. */
export function adminStores(database: Database): AdminStores {
  let stores = bound.get(database);
  if (!stores) {
    stores =
      database.engine === "sqlite"
        ? { reports: bind(reportsStore, database.db) }
        : { reports: bind(pgReportsStore, database.db) satisfies AdminStores["reports"] };
    bound.set(database, stores);
  }
  return stores;
}
