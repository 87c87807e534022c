import type { Sql } from "../shared/db/sql.ts";
import { contactsFeature } from "./contacts/contacts.feature.ts";
import { customersFeature } from "./customers/customers.feature.ts";
import { eventsFeature } from "./events/events.feature.ts";
import type { CoreDeps } from "./deps.ts";
import type { RouteDef } from "./http/route.ts";
import { onboardingsFeature } from "./onboardings/onboardings.feature.ts";
import { phaseDurationsFeature } from "./phase-durations/phase-durations.feature.ts";
import { webhooksFeature } from "./webhooks/webhooks.feature.ts";

/** Every resource of the API, in the order the OpenAPI document lists them: the one place a new one registers. */
export const FEATURES = [customersFeature, contactsFeature, onboardingsFeature, phaseDurationsFeature, eventsFeature, webhooksFeature] as const;

type Feature = (typeof FEATURES)[number];
type Intersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never;

/** Every resource's stores together (`{ customers, contacts, onboardings }`). */
export type FeatureStores = Intersection<ReturnType<Feature["stores"]>>;

/** Everything service functions may touch: the core and every resource's stores. */
export type ServiceDeps = CoreDeps & FeatureStores;

export function createFeatureStores(sql: Sql): FeatureStores {
  return Object.assign({}, ...FEATURES.map((feature) => feature.stores(sql))) as FeatureStores;
}

export const featureRoutes = (deps: ServiceDeps): RouteDef[] => FEATURES.flatMap((feature) => feature.routes(deps));

export const featureTags = () => FEATURES.map((feature) => feature.tag);
