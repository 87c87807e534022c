import { Type, type Static } from "@sinclair/typebox";
import { PHASES, STATES } from "../../shared/domain.ts";
import { ListOf, pageQuery } from "../http/pagination.ts";
import { Deleted, DateTime, Nullable, StrictObject, StringEnum, refParam } from "../http/schema-kit.ts";

const phase = StringEnum(PHASES, {
  description: "Ordered: before_getting_started, program_design, review, program_buildout, internal_qa, launch, completed.",
});
const state = StringEnum(STATES, { description: "Whether anything blocks the onboarding." });
const userId = (role: string) =>
  Nullable(
    Type.String({
      minLength: 1,
      maxLength: 255,
      description: `Assigned ${role}: a workspace user's id (\`usr_…\`) or an id of your own. Any string is kept; the admin area marks one that names no user of the workspace, and launch messages reach only users.`,
    }),
  );
const clientDateTime = (description: string) =>
  Nullable(DateTime({ description: `${description} Returned exactly as sent.` }));

export const Onboarding = Type.Object(
  {
    object: Type.Literal("onboarding"),
    id: Type.String({ examples: ["onb_01JDQ41N5P6Q7R8S9T0V1W2X3Y"] }),
    display_id: Type.Integer({ minimum: 1 }),
    customer_id: Type.String(),
    template_id: Nullable(Type.String()),
    phase,
    state,
    started_at: DateTime(),
    completed_at: Nullable(DateTime(), { description: "Set when the phase becomes `completed`, cleared when it leaves it." }),
    target_launch_date: Nullable(DateTime()),
    csm_id: Nullable(Type.String()),
    se_id: Nullable(Type.String()),
    designer_id: Nullable(Type.String()),
    product_ops_id: Nullable(Type.String()),
    notes: Nullable(Type.String()),
    waiting_on_customer: Type.Boolean(),
    waiting_on_customer_since: Nullable(DateTime(), {
      description: "Set when `waiting_on_customer` turns true, cleared when it turns false.",
    }),
    wizard_completed_at: Nullable(DateTime()),
    reminder_email: Type.Boolean(),
    reminder_slack: Type.Boolean(),
    reminder_frequency_days: Type.Integer({ minimum: 1, maximum: 365 }),
    created_at: DateTime(),
    updated_at: DateTime(),
  },
  { $id: "Onboarding" },
);
export type OnboardingResource = Static<typeof Onboarding>;

export const OnboardingList = ListOf(Onboarding, "OnboardingList");
export const DeletedOnboarding = Deleted("onboarding", "onb_01JDQ41N5P6Q7R8S9T0V1W2X3Y");

/** Fields both create and update accept. */
const editable = {
  template_id: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 255, description: "Free text: kept and returned, never interpreted." }))),
  phase: Type.Optional(phase),
  state: Type.Optional(state),
  target_launch_date: Type.Optional(clientDateTime("Planned launch.")),
  csm_id: Type.Optional(userId("customer-success manager")),
  se_id: Type.Optional(userId("solutions engineer")),
  designer_id: Type.Optional(userId("designer")),
  product_ops_id: Type.Optional(userId("product-ops owner")),
  notes: Type.Optional(Nullable(Type.String({ maxLength: 10_000 }))),
  reminder_email: Type.Optional(Type.Boolean({ description: "Defaults to true." })),
  reminder_slack: Type.Optional(Type.Boolean({ description: "Defaults to true." })),
  reminder_frequency_days: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 365, description: "Days between reminders; defaults to 1." }),
  ),
};

export const CreateOnboardingBody = StrictObject(
  {
    customer_id: Type.Union(
      [
        Type.String({ minLength: 1, maxLength: 255, description: "The customer's `id`, or its `display_id` as a decimal string." }),
        Type.Integer({ minimum: 1, description: "The customer's `display_id`." }),
      ],
      { description: "The parent customer: its `id` or `display_id`.", examples: ["cus_01JDQ3Z8X4T6W9N2K5M7P0R3S8", "42", 42] },
    ),
    ...editable,
  },
  { $id: "CreateOnboarding", description: "Omitted: phase `before_getting_started`, state `active`, both reminders on, every day." },
);
export type CreateOnboardingInput = Static<typeof CreateOnboardingBody>;

export const UpdateOnboardingBody = StrictObject(
  {
    ...editable,
    waiting_on_customer: Type.Optional(Type.Boolean()),
    wizard_completed_at: Type.Optional(clientDateTime("When the set-up wizard was finished.")),
  },
  {
    $id: "UpdateOnboarding",
    description:
      "Changes one or many fields at once; omitted fields keep their values. Any phase may follow any other. A phase change records its phase-transition record, which is also its customer's timeline entry; entering `launch` with a live key runs the launch automations.",
  },
);
export type UpdateOnboardingInput = Static<typeof UpdateOnboardingBody>;

export const OnboardingRefParams = StrictObject({ onboarding_ref: refParam("onboarding", "12") });
export const CustomerOnboardingsParams = StrictObject({ customer_ref: refParam("customer", "42") });

export const ListOnboardingsQuery = StrictObject({
  ...pageQuery,
  phase: Type.Optional(StringEnum(PHASES, { description: "Only onboardings in this phase." })),
  state: Type.Optional(StringEnum(STATES, { description: "Only onboardings in this state." })),
});
export type ListOnboardingsFilter = Static<typeof ListOnboardingsQuery>;
