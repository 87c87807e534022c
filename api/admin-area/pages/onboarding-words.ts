import type { OnboardingState, Phase } from "../../../shared/domain.ts";
import { html, type SafeHtml } from "../html.ts";

/** How the onboarding pages name the API's values (the API's own value stays in the page as data). */
export const PHASE_LABELS: Record<Phase, string> = {
  before_getting_started: "Before getting started",
  program_design: "Program design",
  review: "Review",
  program_buildout: "Program build-out",
  internal_qa: "Internal QA",
  launch: "Launch",
  completed: "Completed",
};

export const STATE_LABELS: Record<OnboardingState, string> = {
  active: "Active",
  paused: "Paused",
  at_risk: "At risk",
  waiting: "Waiting",
};

export const phaseLabel = (phase: string) => PHASE_LABELS[phase as Phase] ?? phase;
export const stateLabel = (state: string) => STATE_LABELS[state as OnboardingState] ?? state;

export function stateBadge(state: OnboardingState): SafeHtml {
  return html`<span class="badge badge-state-${state}">${STATE_LABELS[state]}</span>`;
}

/** The workspace's people by id: whom an onboarding's `csm_id` and the like name. */
export type People = ReadonlyMap<string, string>;

/**
 * A person field of an onboarding: the user's name, or the id marked as naming no user of the
 * workspace (the API accepts any string; a launch's Slack message cannot reach such a CSM).
 */
export function person(id: string | null, people: People): SafeHtml | string {
  if (id === null) return "—";
  const name = people.get(id);
  if (name !== undefined) return html`<span title="${id}">${name}</span>`;
  return html`<span class="unknown-person" data-testid="unknown-person"><code>${id}</code> <span class="badge badge-warn">not a user here</span></span>`;
}

export const onboardingPath = (id: string) => `/admin/onboardings/${encodeURIComponent(id)}`;

/** `#12 · Acme Corp`, linked to the onboarding's page. */
export function onboardingLink(row: { id: string; displayId: number | null; customerName: string | null }): SafeHtml {
  const number = row.displayId === null ? row.id : `#${row.displayId}`;
  return html`<a href="${onboardingPath(row.id)}">${number}</a> ${row.customerName ?? ""}`;
}
