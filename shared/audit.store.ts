import type { Flow } from "./db/flow.ts";
import type { Sql } from "./db/sql.ts";

/**
 * The audit log's one writer statement, for the admin area's actions and the operator's
 * commands alike: each entry is written in the transaction of the change it records.
 */
export interface AuditEntry {
  orgId: string;
  /** The administrator who acted; null for the operator's command line. */
  actorUserId: string | null;
  /** The administrator's e-mail at the time (kept after they are removed), or OPERATOR_ACTOR. */
  actor: string;
  action: string;
  target: string | null;
  detail: string | null;
  /** The client address of a page's request; for the command line, the OS user and host it ran as. */
  address: string | null;
  at: number;
}

/** Who the audit log names for a command of `npm run admin`. */
export const OPERATOR_ACTOR = "operator (CLI)";

export function createAuditStore(sql: Sql) {
  const insert = sql.statement(
    `INSERT INTO audit_log (org_id, actor_user_id, actor, action, target, detail, address, at) VALUES ($orgId, $actorUserId, $actor, $action, $target, $detail, $address, $at)`,
  );
  return {
    insert: (entry: AuditEntry): Flow<number> => insert.run({ ...entry }),
  };
}
