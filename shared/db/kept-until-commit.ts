import type { Database } from "bun:sqlite";
import { inOwnTransaction } from "./turn-snapshot.ts";
import { watchWalCommits } from "./wal-commits.ts";

/**
 * Distinct parameters kept at most between two commits: a bound on memory, not a working set
 * (a commit empties them all; under a read load that is many times a second).
 */
const MAX_KEPT = 10_000;

type Params = Record<string, unknown>;

/** The parameters as one key: their values in order (a statement's parameters are strings and numbers). */
function keyOf(params: Params): string {
  let key = "";
  for (const name in params) key += `${String(params[name])}\u0000`;
  return key;
}

/**
 * A SQLite read whose answers are kept, per parameters, until any connection of any process
 * commits (`StatementOptions.keptUntilCommit`): for a small value that every request needs and
 * few changes move, such as a workspace's onboarding revision. Null for a connection without a
 * WAL-index header to watch (in memory, not in WAL mode): its reads are made every time.
 *
 * Why an answer kept is the answer a read would give: the watch (wal-commits.ts) is marked
 * before the first read after a commit, and asked before every use. While it has not moved, no
 * connection committed since the mark, so the database holds what those reads found. A commit
 * between the mark and a read is seen by that read and, once more, by the next `moved()`, which
 * empties them all: a read too many, never a stale answer. A read made inside a transaction of
 * the connection's own sees what that transaction wrote, which may never commit, so it is never
 * kept.
 */
export function keptUntilCommit<R>(
  connection: Pick<Database, "inTransaction" | "filename" | "query">,
  read: (params: Params) => R,
): ((params?: Params) => R) | null {
  const watch = watchWalCommits(connection);
  if (watch === null) return null;
  const answers = new Map<string, R>();
  return (params = {}) => {
    if (watch.moved()) {
      answers.clear();
      watch.mark();
    }
    if (inOwnTransaction(connection)) return read(params);
    const key = keyOf(params);
    if (answers.has(key)) return answers.get(key)!;
    const answer = read(params);
    if (answers.size >= MAX_KEPT) answers.clear();
    answers.set(key, answer);
    return answer;
  };
}
