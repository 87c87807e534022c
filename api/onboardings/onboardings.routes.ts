import { exampleOnboarding, listOf, requestExamples } from "../examples.ts";
import { apiOrigin } from "../events/events.service.ts";
import { createKeptShare, createRenderedResources } from "../http/rendered.ts";
import { defineRoute, type RouteDef } from "../http/route.ts";
import {
  CreateOnboardingBody,
  CustomerOnboardingsParams,
  DeletedOnboarding,
  ListOnboardingsQuery,
  Onboarding,
  OnboardingList,
  OnboardingRefParams,
  UpdateOnboardingBody,
} from "./onboardings.schema.ts";
import {
  createOnboarding,
  deleteOnboarding,
  getOnboarding,
  listOnboardings,
  updateOnboarding,
  type OnboardingDeps,
} from "./onboardings.service.ts";
import { onboardingsTogether } from "./onboardings.together.ts";
import { onboardingUpdatesTogether } from "./onboarding-updates.together.ts";

const tag = "Onboardings";
const page = { status: 200, description: "A page of onboardings.", schema: OnboardingList, example: listOf(exampleOnboarding) } as const;
const one = (description: string) => ({ status: 200, description, schema: Onboarding, example: exampleOnboarding }) as const;

export const onboardingRoutes = (deps: OnboardingDeps): RouteDef[] => {
  // This process's rendered onboardings, for the lists and the GET of one (api/http/rendered.ts):
  // one set of texts, and how often each kind of read finds its records there.
  const rendered = createRenderedResources();
  const lists = { ...deps, rendered, kept: createKeptShare() };
  const gets = { ...deps, rendered, kept: createKeptShare() };
  return [
    defineRoute({
      method: "GET",
      path: "/api/v1/onboardings",
      operationId: "listOnboardings",
      summary: "List onboardings",
      description: "Newest `created_at` first; `phase` and `state` filter before pagination.",
      tag,
      query: ListOnboardingsQuery,
      success: page,
      errors: [],
      handler: ({ actor, query }) => listOnboardings(lists, actor, null, query),
    }),
    defineRoute({
      method: "POST",
      path: "/api/v1/onboardings",
      operationId: "createOnboarding",
      summary: "Create an onboarding",
      description: "Starts an onboarding for a customer. Creating one records no phase change and runs no automation.",
      tag,
      body: CreateOnboardingBody,
      bodyExample: requestExamples.createOnboarding,
      success: { status: 201, description: "The new onboarding.", schema: Onboarding, example: exampleOnboarding },
      errors: ["customer_not_found"],
      handler: (input) => createOnboarding(deps, input.actor, input.body, apiOrigin(input)),
      // Creates that arrive together are written together: one transaction for a batch.
      together: onboardingsTogether(deps),
    }),
    defineRoute({
      method: "GET",
      path: "/api/v1/customers/:customer_ref/onboardings",
      operationId: "listCustomerOnboardings",
      summary: "List a customer's onboardings",
      description: "The same filters and order as the top-level list, for one customer.",
      tag,
      params: CustomerOnboardingsParams,
      query: ListOnboardingsQuery,
      success: page,
      errors: ["customer_not_found"],
      handler: ({ actor, params, query }) => listOnboardings(lists, actor, params.customer_ref, query),
    }),
    defineRoute({
      method: "GET",
      path: "/api/v1/onboardings/:onboarding_ref",
      operationId: "getOnboarding",
      summary: "Retrieve an onboarding",
      description: "By `id` or `display_id`. A deleted onboarding answers 404 `onboarding_not_found`.",
      tag,
      params: OnboardingRefParams,
      success: one("The onboarding."),
      errors: ["onboarding_not_found"],
      handler: ({ actor, params }) => getOnboarding(gets, actor, params.onboarding_ref),
    }),
    defineRoute({
      method: "PATCH",
      path: "/api/v1/onboardings/:onboarding_ref",
      operationId: "updateOnboarding",
      summary: "Update an onboarding",
      description:
        "Changes one or many fields at once. Skipping phases is allowed but distorts phase-duration metrics; to retract a launch, set state `paused` rather than reusing `completed`.",
      tag,
      params: OnboardingRefParams,
      body: UpdateOnboardingBody,
      bodyExample: requestExamples.updateOnboarding,
      success: one("The updated onboarding."),
      errors: ["onboarding_not_found"],
      handler: (input) => updateOnboarding(deps, input.actor, input.params.onboarding_ref, input.body, apiOrigin(input)),
      // Updates that arrive together are written together, as creates are.
      together: onboardingUpdatesTogether(deps),
    }),
    defineRoute({
      method: "DELETE",
      path: "/api/v1/onboardings/:onboarding_ref",
      operationId: "deleteOnboarding",
      summary: "Delete an onboarding",
      description: "Soft delete: later reads and updates answer 404 `onboarding_not_found`.",
      tag,
      params: OnboardingRefParams,
      success: { status: 200, description: "The deleted onboarding's id.", schema: DeletedOnboarding, example: { object: "onboarding", id: exampleOnboarding.id, deleted: true } },
      errors: ["onboarding_not_found"],
      handler: (input) => deleteOnboarding(deps, input.actor, input.params.onboarding_ref, apiOrigin(input)),
    }),
  ];
};
