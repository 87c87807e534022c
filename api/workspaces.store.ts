import { eq, sql } from "drizzle-orm";
import type { Db } from "../shared/db/client.ts";
import { organizations } from "../shared/db/schema.ts";

/** Workspace settings the API consults (rarely: only when an onboarding enters `launch`). */
export function createWorkspaceStore(db: Db) {
  const settings = db
    .select({ launchRecapEnabled: organizations.launchRecapEnabled })
    .from(organizations)
    .where(eq(organizations.id, sql.placeholder("orgId")))
    .prepare();
  return {
    launchRecapEnabled: (orgId: string): boolean => settings.get({ orgId })?.launchRecapEnabled ?? false,
  };
}

