import { defineFeature } from "../feature.ts";
import { customerRoutes } from "./customers.routes.ts";
import { createCustomerStore } from "./customers.store.ts";

export const customersFeature = defineFeature({
  tag: { name: "Customers", description: "The accounts being onboarded." },
  stores: (sql) => ({ customers: createCustomerStore(sql) }),
  routes: customerRoutes,
});
