import type { Database } from "bun:sqlite";

/**
 * Counts calls of `method` on the statements `connection` prepares from now on whose text
 * `matches`: how a suite tells that a read was kept (no statement ran) or a transaction shared
 * (one BEGIN). Counted on the connection itself, not through a wrapper, because the state under
 * test (a snapshot, a kept answer) belongs to that connection.
 */
export function countStatementCalls(connection: Database, matches: (text: string) => boolean, method: "run" | "get"): { readonly count: number } {
  const counter = { count: 0 };
  const prepare = connection.prepare.bind(connection);
  connection.prepare = ((text: string, ...rest: never[]) => {
    const statement = prepare(text, ...rest);
    if (!matches(text)) return statement;
    const call = statement[method].bind(statement) as (...args: never[]) => unknown;
    (statement as unknown as Record<string, unknown>)[method] = (...args: never[]) => (counter.count++, call(...args));
    return statement;
  }) as typeof connection.prepare;
  return counter;
}
