import { exampleContact, listOf, requestExamples } from "../examples.ts";
import { apiOrigin } from "../events/events.service.ts";
import { defineRoute, type RouteDef } from "../http/route.ts";
import {
  Contact,
  ContactList,
  ContactRefParams,
  CreateContactBody,
  CustomerContactsParams,
  DeletedContact,
  ListContactsQuery,
  UpdateContactBody,
} from "./contacts.schema.ts";
import { createContact, deleteContact, getContact, listContacts, updateContact, type ContactDeps } from "./contacts.service.ts";

const tag = "Contacts";
const base = "/api/v1/customers/:customer_ref/contacts";

export const contactRoutes = (deps: ContactDeps): RouteDef[] => [
  defineRoute({
    method: "GET",
    path: base,
    operationId: "listContacts",
    summary: "List a customer's contacts",
    description: "Newest `created_at` first.",
    tag,
    params: CustomerContactsParams,
    query: ListContactsQuery,
    success: { status: 200, description: "A page of contacts.", schema: ContactList, example: listOf(exampleContact) },
    errors: ["customer_not_found"],
    handler: ({ actor, params, query }) => listContacts(deps, actor, params.customer_ref, query),
  }),
  defineRoute({
    method: "POST",
    path: base,
    operationId: "createContact",
    summary: "Create a contact",
    description: "Adds a contact to the customer. `is_primary: true` makes it the customer's only primary contact.",
    tag,
    params: CustomerContactsParams,
    body: CreateContactBody,
    bodyExample: requestExamples.createContact,
    success: { status: 201, description: "The new contact.", schema: Contact, example: exampleContact },
    errors: ["customer_not_found"],
    handler: (input) => createContact(deps, input.actor, input.params.customer_ref, input.body, apiOrigin(input)),
  }),
  defineRoute({
    method: "GET",
    path: `${base}/:contact_ref`,
    operationId: "getContact",
    summary: "Retrieve a contact",
    description: "By `id` or `display_id`, under its own customer.",
    tag,
    params: ContactRefParams,
    success: { status: 200, description: "The contact.", schema: Contact, example: exampleContact },
    errors: ["customer_not_found", "contact_not_found"],
    handler: ({ actor, params }) => getContact(deps, actor, params.customer_ref, params.contact_ref),
  }),
  defineRoute({
    method: "PATCH",
    path: `${base}/:contact_ref`,
    operationId: "updateContact",
    summary: "Update a contact",
    description: "Partial update of `name`, `email`, `title`, `is_primary`.",
    tag,
    params: ContactRefParams,
    body: UpdateContactBody,
    bodyExample: requestExamples.updateContact,
    success: { status: 200, description: "The updated contact.", schema: Contact, example: exampleContact },
    errors: ["customer_not_found", "contact_not_found"],
    handler: (input) => updateContact(deps, input.actor, input.params.customer_ref, input.params.contact_ref, input.body, apiOrigin(input)),
  }),
  defineRoute({
    method: "DELETE",
    path: `${base}/:contact_ref`,
    operationId: "deleteContact",
    summary: "Delete a contact",
    description: "Soft delete. A second delete answers 404.",
    tag,
    params: ContactRefParams,
    success: { status: 200, description: "The deleted contact's id.", schema: DeletedContact, example: { object: "contact", id: exampleContact.id, deleted: true } },
    errors: ["customer_not_found", "contact_not_found"],
    handler: (input) => deleteContact(deps, input.actor, input.params.customer_ref, input.params.contact_ref, apiOrigin(input)),
  }),
];
