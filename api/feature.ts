import type { Sql } from "../shared/db/sql.ts";
import type { RouteDef } from "./http/route.ts";

/**
 * A resource of the API, declared once in its own folder (`<resource>/<resource>.feature.ts`):
 * its stores, built from the database's statements; its routes, given the services'
 * dependencies; and its OpenAPI tag. `api/features.ts` lists them, and the composition root,
 * the stores and the OpenAPI document loop over that list, so a new resource touches its own
 * folder and one line there.
 *
 * Error codes stay in the one error map (`api/http/error-map.ts`, with their union in
 * `shared/errors.ts`): the contract documents them as one table, and each route lists the
 * codes it answers with.
 */
export interface Feature<Stores extends object, Deps> {
  tag: { name: string; description: string };
  stores(sql: Sql): Stores;
  routes(deps: Deps): RouteDef[];
}

export const defineFeature = <Stores extends object, Deps>(feature: Feature<Stores, Deps>) => feature;
