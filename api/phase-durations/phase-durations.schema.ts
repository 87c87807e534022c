import { Type, type Static } from "@sinclair/typebox";
import { PHASES } from "../../shared/domain.ts";
import { DateTime, Nullable, StrictObject, StringEnum } from "../http/schema-kit.ts";

const Phase = StringEnum(PHASES);
const Seconds = (description: string) => Type.Number({ minimum: 0, description, examples: [86400] });

export const PhaseVisits = Type.Object(
  {
    phase: Phase,
    visits: Type.Integer({ minimum: 1, description: "Times the onboarding entered this phase (the current visit included)." }),
    active_seconds: Seconds("Time in this phase with the SLA clock running, over every visit."),
    suspended_seconds: Seconds("Time in this phase while the clock was suspended (state `waiting` with `waiting_on_customer` true)."),
    first_entered_at: DateTime(),
    last_exited_at: Nullable(DateTime(), { description: "When the last visit ended; null while the only visit is the current one." }),
  },
  { $id: "PhaseVisits" },
);

export const PhaseDurations = Type.Object(
  {
    object: Type.Literal("phase_durations"),
    onboarding_id: Type.String({ examples: ["onb_01JDQ41N5P6Q7R8S9T0V1W2X3Y"] }),
    phases: Type.Array(PhaseVisits, { description: "In phase order, only those visited." }),
    current: Type.Object({
      phase: Phase,
      entered_at: DateTime(),
      active_seconds: Seconds("Of the current visit, up to now."),
      suspended: Type.Boolean({ description: "Whether the clock is suspended now." }),
    }),
    total_active_seconds: Seconds("Every visit's active time, the current one up to now."),
    total_suspended_seconds: Seconds("Every visit's suspended time, the current one up to now."),
    launched_at: Nullable(DateTime(), { description: "When the onboarding first moved into `launch` by a phase change." }),
    target_launch_date: Nullable(DateTime()),
    launched_on_time: Nullable(Type.Boolean(), {
      description: "Whether that first launch was at or before the target launch date it had then; null before launch, or when it had none.",
    }),
  },
  { $id: "PhaseDurations" },
);
export type PhaseDurationsResource = Static<typeof PhaseDurations>;

export const PhaseDurationReport = Type.Object(
  {
    object: Type.Literal("phase_duration_report"),
    from: Nullable(DateTime()),
    to: Nullable(DateTime()),
    phases: Type.Array(
      Type.Object({
        phase: Phase,
        visits: Type.Integer({ minimum: 1 }),
        mean_active_seconds: Seconds("Exact."),
        median_active_seconds: Seconds("Nearest rank; within 2% of the exact value when the period spans whole months (read from the stored aggregate), exact otherwise."),
        p90_active_seconds: Seconds("Nearest rank, as the median."),
      }),
      { description: "Visits that ended in [from, to), by phase in phase order; only phases with visits." },
    ),
    launches: Type.Object({
      count: Type.Integer({ minimum: 0, description: "First moves into `launch` in the period." }),
      on_time: Type.Integer({ minimum: 0 }),
      late: Type.Integer({ minimum: 0 }),
      on_time_rate: Nullable(Type.Number({ minimum: 0, maximum: 1 }), { description: "on_time / (on_time + late); null when no launch had a target date." }),
      mean_delay_seconds: Nullable(Type.Number({ minimum: 0 }), { description: "Mean time past the target of the late launches; null when none was late." }),
    }),
  },
  { $id: "PhaseDurationReport" },
);
export type PhaseDurationReportResource = Static<typeof PhaseDurationReport>;

export const PhaseDurationReportQuery = StrictObject({
  customer_id: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: "Only this customer's onboardings (its `id` or `display_id`)." })),
  from: Type.Optional(DateTime({ description: "Visits that ended at or after this instant. Without it, from the first." })),
  to: Type.Optional(DateTime({ description: "Visits that ended before this instant. Without it, up to now." })),
});
export type PhaseDurationReportQuery = Static<typeof PhaseDurationReportQuery>;
