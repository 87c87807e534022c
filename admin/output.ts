import type { Database } from "../shared/db/database.ts";
import type { Flow } from "../shared/db/flow.ts";
import type { Lifetimes } from "../shared/retention.ts";
import { OperatorError } from "../shared/workspaces.ts";

/** The command line's parsed flags. */
export type Flags = Record<string, string | boolean | undefined>;

/** What a command answers: one JSON object (`--json`) or text for a person. */
export interface Output {
  json: Record<string, unknown>;
  text: string;
}

/** What every command may need of the installation's configuration. */
export interface Context {
  secretKey: string | null;
  publicUrl: string;
  lifetimes: Lifetimes;
  /** Said on stderr beside an invite link when its origin is only the default's guess; else null. */
  linkWarning: string | null;
}

/**
 * A command is a flow over the configured database (shared/db/flow.ts): `run` drives it
 * synchronously on SQLite and asynchronously on PostgreSQL, from the same code.
 */
export type Command = (database: Database, flags: Flags, context: Context) => Flow<Output>;

export function required(flags: Flags, name: string): string {
  const value = flags[name];
  if (typeof value !== "string" || value === "") throw new OperatorError(`--${name} is required.`);
  return value;
}

export function table(rows: Record<string, unknown>[], columns: string[]): string {
  if (rows.length === 0) return "(none)";
  const cells = rows.map((r) => columns.map((c) => String(r[c] ?? "-")));
  const widths = columns.map((c, i) => Math.max(c.length, ...cells.map((row) => row[i]!.length)));
  const line = (values: string[]) => values.map((v, i) => v.padEnd(widths[i]!)).join("  ").trimEnd();
  return [line(columns), ...cells.map(line)].join("\n");
}
