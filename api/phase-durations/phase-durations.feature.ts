import { createPhaseDurationStore } from "../../shared/db/phase-durations.store.ts";
import { defineFeature } from "../feature.ts";
import { phaseDurationRoutes } from "./phase-durations.routes.ts";

export const phaseDurationsFeature = defineFeature({
  tag: {
    name: "Phase durations",
    description: "Time in each phase with the SLA clock's rules (suspended while waiting on the customer), per onboarding and across them, and launches against their targets.",
  },
  stores: (sql) => ({ phaseDurations: createPhaseDurationStore(sql) }),
  routes: phaseDurationRoutes,
});
