import { eq } from "drizzle-orm";
import { on, type PgDb } from "../shared/db/postgres.ts";
import { organizations } from "../shared/db/schema.pg.ts";

/** The PostgreSQL adapter of the workspace settings the API consults. */
export function createPgWorkspaceStore(db: PgDb) {
  return {
    launchRecapEnabled: async (orgId: string): Promise<boolean> =>
      (await on(db).select({ on: organizations.launchRecapEnabled }).from(organizations).where(eq(organizations.id, orgId)))[0]?.on ?? false,
  };
}
