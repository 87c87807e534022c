import { defineRoute, type RouteDef } from "../http/route.ts";
import { examplePhaseDurationReport, examplePhaseDurations } from "../examples.ts";
import { OnboardingRefParams } from "../onboardings/onboardings.schema.ts";
import { PhaseDurationReport, PhaseDurationReportQuery, PhaseDurations } from "./phase-durations.schema.ts";
import { phaseDurationReport, phaseDurations, type PhaseDurationDeps } from "./phase-durations.service.ts";

const tag = "Phase durations";

export const phaseDurationRoutes = (deps: PhaseDurationDeps): RouteDef[] => [
  defineRoute({
    method: "GET",
    path: "/api/v1/onboardings/:onboarding_ref/phase_durations",
    operationId: "getOnboardingPhaseDurations",
    summary: "Time per phase of one onboarding",
    description:
      "How long the onboarding has spent in each phase it visited, with the SLA clock's rules: the clock is suspended while `state` is `waiting` with `waiting_on_customer` true; repeat visits add up; the current phase counts up to now. Answers every change the moment it is made, test keys' included.",
    tag,
    params: OnboardingRefParams,
    success: { status: 200, description: "The onboarding's phase durations.", schema: PhaseDurations, example: examplePhaseDurations },
    errors: ["onboarding_not_found"],
    handler: ({ actor, params }) => phaseDurations(deps, actor, params.onboarding_ref),
  }),
  defineRoute({
    method: "GET",
    path: "/api/v1/reports/phase_durations",
    operationId: "getPhaseDurationReport",
    summary: "Phase durations and launches across onboardings",
    description:
      "Visits that ended in `[from, to)`, by phase: how many, and their mean, median and 90th percentile of active time; and the first launches in the period, on time or late against the target launch date each had then. Reads a stored monthly aggregate, so it answers fast for any number of onboardings.",
    tag,
    query: PhaseDurationReportQuery,
    success: { status: 200, description: "The report.", schema: PhaseDurationReport, example: examplePhaseDurationReport },
    errors: ["invalid_string", "too_small", "customer_not_found", "unknown_field"],
    handler: ({ actor, query }) => phaseDurationReport(deps, actor, query),
  }),
];
