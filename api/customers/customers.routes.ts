import { exampleCustomer, listOf, requestExamples } from "../examples.ts";
import { apiOrigin } from "../events/events.service.ts";
import { defineRoute, type RouteDef } from "../http/route.ts";
import {
  CreateCustomerBody,
  Customer,
  CustomerList,
  CustomerRefParams,
  DeletedCustomer,
  ListCustomersQuery,
  UpdateCustomerBody,
} from "./customers.schema.ts";
import { createCustomer, deleteCustomer, getCustomer, listCustomers, updateCustomer, type CustomerDeps } from "./customers.service.ts";

const tag = "Customers";

export const customerRoutes = (deps: CustomerDeps): RouteDef[] => [
  defineRoute({
    method: "GET",
    path: "/api/v1/customers",
    operationId: "listCustomers",
    summary: "List customers",
    description: "Newest `created_at` first. The `status` filter applies before pagination.",
    tag,
    query: ListCustomersQuery,
    success: { status: 200, description: "A page of customers.", schema: CustomerList, example: listOf(exampleCustomer) },
    errors: [],
    handler: ({ actor, query }) => listCustomers(deps, actor, query),
  }),
  defineRoute({
    method: "POST",
    path: "/api/v1/customers",
    operationId: "createCustomer",
    summary: "Create a customer",
    description: "Creates a customer. A taken `slug` answers 409 `slug_taken`; an omitted one is derived from `name`.",
    tag,
    body: CreateCustomerBody,
    bodyExample: requestExamples.createCustomer,
    success: { status: 201, description: "The new customer.", schema: Customer, example: exampleCustomer },
    errors: ["slug_taken"],
    handler: (input) => createCustomer(deps, input.actor, input.body, apiOrigin(input)),
  }),
  defineRoute({
    method: "GET",
    path: "/api/v1/customers/:customer_ref",
    operationId: "getCustomer",
    summary: "Retrieve a customer",
    description: "By `id` or `display_id`. A deleted customer answers 404.",
    tag,
    params: CustomerRefParams,
    success: { status: 200, description: "The customer.", schema: Customer, example: exampleCustomer },
    errors: ["customer_not_found"],
    handler: ({ actor, params }) => getCustomer(deps, actor, params.customer_ref),
  }),
  defineRoute({
    method: "PATCH",
    path: "/api/v1/customers/:customer_ref",
    operationId: "updateCustomer",
    summary: "Update a customer",
    description: "Partial update: omitted fields keep their values.",
    tag,
    params: CustomerRefParams,
    body: UpdateCustomerBody,
    bodyExample: requestExamples.updateCustomer,
    success: { status: 200, description: "The updated customer.", schema: Customer, example: exampleCustomer },
    errors: ["customer_not_found", "slug_taken"],
    handler: (input) => updateCustomer(deps, input.actor, input.params.customer_ref, input.body, apiOrigin(input)),
  }),
  defineRoute({
    method: "DELETE",
    path: "/api/v1/customers/:customer_ref",
    operationId: "deleteCustomer",
    summary: "Delete a customer",
    description: "Soft delete: the customer, its contacts and its onboardings disappear from the API in one transaction. A second delete answers 404.",
    tag,
    params: CustomerRefParams,
    success: { status: 200, description: "The deleted customer's id.", schema: DeletedCustomer, example: { object: "customer", id: exampleCustomer.id, deleted: true } },
    errors: ["customer_not_found"],
    handler: (input) => deleteCustomer(deps, input.actor, input.params.customer_ref, apiOrigin(input)),
  }),
];
