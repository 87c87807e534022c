import { formatMicros, formatMicrosOrNull } from "../../shared/clock.ts";
import type { OnboardingRow } from "../../shared/db/schema.ts";
import type { OnboardingResource } from "./onboardings.schema.ts";

/** The row as the API returns it (and as events carry it). */
export function toOnboardingResource(row: OnboardingRow): OnboardingResource {
  return {
    object: "onboarding",
    id: row.id,
    display_id: row.displayId,
    customer_id: row.customerId,
    template_id: row.templateId,
    phase: row.phase,
    state: row.state,
    started_at: formatMicros(row.startedAt),
    completed_at: formatMicrosOrNull(row.completedAt),
    target_launch_date: row.targetLaunchDate,
    csm_id: row.csmId,
    se_id: row.seId,
    designer_id: row.designerId,
    product_ops_id: row.productOpsId,
    notes: row.notes,
    waiting_on_customer: row.waitingOnCustomer,
    waiting_on_customer_since: formatMicrosOrNull(row.waitingOnCustomerSince),
    wizard_completed_at: row.wizardCompletedAt,
    reminder_email: row.reminderEmail,
    reminder_slack: row.reminderSlack,
    reminder_frequency_days: row.reminderFrequencyDays,
    created_at: formatMicros(row.createdAt),
    updated_at: formatMicros(row.updatedAt),
  };
}
