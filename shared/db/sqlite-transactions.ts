import { AsyncLocalStorage } from "node:async_hooks";
import type { Database } from "bun:sqlite";
import type { Db } from "./client.ts";

/**
 * Asynchronous transactions on SQLite, for the async store interface (docs/postgres.md).
 *
 * One connection serves every request of a process, so a transaction whose callback awaits
 * would let other requests' statements run inside it. Here:
 * - transactions of one database run one at a time (an async mutex), `BEGIN IMMEDIATE` …
 *   `COMMIT`, rolled back on a throw;
 * - AsyncLocalStorage marks whose transaction is open: a transaction started inside it joins it;
 * - a store call from any other context waits (`outsideOthers`) while one is open, reads
 *   included, since a read on the shared connection would see uncommitted rows;
 * - a synchronous `writeTransaction` from another context is refused with a busy error (which
 *   `retryWhileBusy` waits out) instead of silently becoming a savepoint of the open one.
 */
interface Open {
  id: symbol;
  done: Promise<void>;
}
interface Gate {
  open: Open | null;
  /** Resolves when every transaction queued so far has ended. */
  tail: Promise<void>;
}

const gates = new WeakMap<Database, Gate>();
const owner = new AsyncLocalStorage<symbol>();

function gateOf(db: Db): Gate {
  let gate = gates.get(db.$client);
  if (!gate) gates.set(db.$client, (gate = { open: null, tail: Promise.resolve() }));
  return gate;
}

/** True when a transaction of another context is open on this database. */
export function foreignTransactionOpen(db: Db): boolean {
  const open = gates.get(db.$client)?.open;
  return open !== undefined && open !== null && open.id !== owner.getStore();
}

/** Whether the caller runs inside an open asynchronous transaction of this database. */
export function insideTransaction(db: Db): boolean {
  const open = gates.get(db.$client)?.open;
  return open !== undefined && open !== null && open.id === owner.getStore();
}

export async function sqliteTransaction<T>(db: Db, fn: () => Promise<T> | T): Promise<T> {
  if (insideTransaction(db)) return fn();
  const gate = gateOf(db);
  const previous = gate.tail;
  let release!: () => void;
  const done = new Promise<void>((resolve) => (release = resolve));
  gate.tail = previous.then(() => done);
  await previous;
  const id = Symbol("transaction");
  gate.open = { id, done };
  try {
    db.$client.exec("BEGIN IMMEDIATE");
    try {
      const result = await owner.run(id, fn);
      db.$client.exec("COMMIT");
      return result;
    } catch (error) {
      if (db.$client.inTransaction) db.$client.exec("ROLLBACK");
      throw error;
    }
  } finally {
    gate.open = null;
    release();
  }
}

/**
 * Runs a store call that is not part of a transaction: at once when no other context's
 * transaction is open (no promise, no tick), otherwise once it has ended.
 */
export function outsideOthers<T>(db: Db, run: () => T): T | Promise<T> {
  const open = gates.get(db.$client)?.open;
  if (!open || open.id === owner.getStore()) return run();
  return open.done.then(() => outsideOthers(db, run));
}

/** The error a synchronous transaction meets while another context's asynchronous one is open. */
export class TransactionOpenElsewhere extends Error {
  readonly code = "SQLITE_BUSY_ASYNC_TRANSACTION";
  constructor() {
    super("another request's transaction is open on this connection");
  }
}
