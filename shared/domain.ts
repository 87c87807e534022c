/** The API's enumerations, in one place for schemas, services and storage. */

export const PHASES = [
  "before_getting_started",
  "program_design",
  "review",
  "program_buildout",
  "internal_qa",
  "launch",
  "completed",
] as const;
export type Phase = (typeof PHASES)[number];

export const STATES = ["active", "paused", "at_risk", "waiting"] as const;
export type OnboardingState = (typeof STATES)[number];

export const CUSTOMER_STATUSES = ["onboarding", "active", "paused", "churned"] as const;
export type CustomerStatus = (typeof CUSTOMER_STATUSES)[number];

export const KEY_MODES = ["live", "test"] as const;
export type KeyMode = (typeof KEY_MODES)[number];

export const RATE_LIMIT_TIERS = ["default", "paid"] as const;
export type RateLimitTier = (typeof RATE_LIMIT_TIERS)[number];

/** Resource kinds that get a per-workspace `display_id` and `created_at` sequence. */
export type SequencedKind = "customer" | "contact" | "onboarding";

/** Lowercase letters and digits in groups joined by single hyphens: customer and workspace slugs. */
export const SLUG_PATTERN = "^[a-z0-9]+(?:-[a-z0-9]+)*$";
export const SLUG_MAX_LENGTH = 64;

/** A pragmatic address check (what a mail server would accept), not RFC 5322 in full. */
export const EMAIL_PATTERN = /^[^\s@"(),:;<>[\\\]]{1,64}@(?=.{1,253}$)(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,63}$/;
