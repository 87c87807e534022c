import { defineFeature } from "../feature.ts";
import { onboardingRoutes } from "./onboardings.routes.ts";
import { createOnboardingStore } from "./onboardings.store.ts";

export const onboardingsFeature = defineFeature({
  tag: { name: "Onboardings", description: "Engagements that move through ordered phases and carry a health state." },
  stores: (sql) => ({ onboardings: createOnboardingStore(sql) }),
  routes: onboardingRoutes,
});
