import { defineFeature } from "../feature.ts";
import { contactRoutes } from "./contacts.routes.ts";
import { createContactStore } from "./contacts.store.ts";

export const contactsFeature = defineFeature({
  tag: { name: "Contacts", description: "People attached to one customer." },
  stores: (sql) => ({ contacts: createContactStore(sql) }),
  routes: contactRoutes,
});
