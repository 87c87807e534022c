import type { Sql } from "../shared/db/sql.ts";
import { decoder } from "../shared/db/sql.ts";
import type { Flow } from "../shared/db/flow.ts";

/** Workspace settings the API consults (rarely: only when an onboarding enters `launch`). */
export function createWorkspaceStore(sql: Sql) {
  const settings = sql.statement<{ launchRecapEnabled: boolean }>(
    `SELECT launch_recap_enabled AS "launchRecapEnabled" FROM organizations WHERE id = $orgId`,
    { decode: decoder({ launchRecapEnabled: "boolean" }) },
  );
  return {
    *launchRecapEnabled(orgId: string): Flow<boolean> {
      return (yield* settings.get({ orgId }))?.launchRecapEnabled ?? false;
    },
  };
}
