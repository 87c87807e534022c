import { defineFeature } from "../feature.ts";
import { eventRoutes } from "./events.routes.ts";
import { createEventStore } from "../../shared/db/events.store.ts";

export const eventsFeature = defineFeature({
  tag: { name: "Events", description: "The change feed: every change of a customer, contact or onboarding, once, in commit order." },
  stores: (sql) => ({ events: createEventStore(sql) }),
  routes: eventRoutes,
});
