/** Example payloads for the OpenAPI document; each is checked against its schema in tests. */
export const exampleCustomer = {
  object: "customer",
  id: "cus_01JDQ3Z8X4T6W9N2K5M7P0R3S8",
  display_id: 42,
  name: "Acme Corp",
  slug: "acme-corp",
  domain: "acme.example",
  status: "onboarding",
  metadata: { crm_id: "0015g00000XyZ" },
  created_at: "2026-11-22T10:15:30.123456Z",
  updated_at: "2026-11-22T10:15:30.123456Z",
} as const;

export const exampleContact = {
  object: "contact",
  id: "con_01JDQ40B2C3D4E5F6G7H8J9K0M",
  display_id: 7,
  customer_id: exampleCustomer.id,
  name: "Ada Lovelace",
  email: "ada@acme.example",
  title: "Head of Operations",
  is_primary: true,
  created_at: "2026-11-22T10:16:02.000001Z",
  updated_at: "2026-11-22T10:16:02.000001Z",
} as const;

export const exampleOnboarding = {
  object: "onboarding",
  id: "onb_01JDQ41N5P6Q7R8S9T0V1W2X3Y",
  display_id: 12,
  customer_id: exampleCustomer.id,
  template_id: null,
  phase: "program_design",
  state: "active",
  started_at: "2026-11-22T10:17:45.500000Z",
  completed_at: null,
  target_launch_date: "2027-01-15T00:00:00Z",
  csm_id: "usr_01JDQ42A1B2C3D4E5F6G7H8J9K",
  se_id: null,
  designer_id: null,
  product_ops_id: null,
  notes: "Kick-off call booked.",
  waiting_on_customer: false,
  waiting_on_customer_since: null,
  wizard_completed_at: null,
  reminder_email: true,
  reminder_slack: true,
  reminder_frequency_days: 1,
  created_at: "2026-11-22T10:17:45.500000Z",
  updated_at: "2026-11-22T11:02:10.250000Z",
} as const;

export const listOf = (item: unknown) => ({
  object: "list",
  data: [item],
  has_more: true,
  next_cursor: (item as { created_at: string }).created_at,
});

export const exampleEvent = {
  object: "event",
  id: "evt_01JDQ41N5P6Q7R8S9T0V1W2X3Y",
  type: "onboarding.phase_changed",
  created_at: "2026-11-24T09:30:00.000000Z",
  livemode: true,
  actor: { type: "api_key", name: "crm-sync" },
  request: { id: "req_01JDQ41N5P6Q7R8S9T0V1W2X3Z", idempotency_key: null },
  data: { object: { ...exampleOnboarding, phase: "review" }, previous_attributes: { phase: "program_design" } },
} as const;

export const exampleWebhookEndpoint = {
  object: "webhook_endpoint" as const,
  id: "we_01JDQ4C0D1E2F3G4H5J6K7M8N9",
  url: "https://hooks.example.com/onboarding",
  enabled_events: ["onboarding.*", "customer.deleted"],
  description: "CRM sync",
  status: "enabled" as const,
  disabled_reason: null,
  created_at: "2026-11-22T10:15:30.123456Z",
  updated_at: "2026-11-22T10:15:30.123456Z",
};
export const exampleWebhookEndpointWithSecret = { ...exampleWebhookEndpoint, secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw" };
export const exampleWebhookAttempt = {
  object: "webhook_attempt" as const,
  id: "wha_01JDQ4D0E1F2G3H4J5K6M7N8P9",
  endpoint_id: exampleWebhookEndpoint.id,
  event_id: "evt_01JDQ41N5P6Q7R8S9T0V1W2X3Y",
  attempt: 2,
  status_code: 500,
  duration_ms: 42,
  error: "answered 500",
  response_excerpt: "upstream unavailable",
  created_at: "2026-11-22T10:15:35.123456Z",
  next_attempt_at: "2026-11-22T10:20:35.123456Z",
};

export const examplePhaseDurations = {
  object: "phase_durations",
  onboarding_id: "onb_01JDQ41N5P6Q7R8S9T0V1W2X3Y",
  phases: [
    { phase: "before_getting_started", visits: 1, active_seconds: 172800, suspended_seconds: 0, first_entered_at: "2026-11-02T09:00:00.000000Z", last_exited_at: "2026-11-04T09:00:00.000000Z" },
    { phase: "program_design", visits: 2, active_seconds: 388800, suspended_seconds: 86400, first_entered_at: "2026-11-04T09:00:00.000000Z", last_exited_at: "2026-11-12T15:00:00.000000Z" },
    { phase: "review", visits: 2, active_seconds: 280800, suspended_seconds: 0, first_entered_at: "2026-11-08T09:00:00.000000Z", last_exited_at: "2026-11-12T09:00:00.000000Z" },
  ],
  current: { phase: "review", entered_at: "2026-11-12T15:00:00.000000Z", active_seconds: 64800, suspended: false },
  total_active_seconds: 842400,
  total_suspended_seconds: 86400,
  launched_at: null,
  target_launch_date: "2026-12-15T00:00:00Z",
  launched_on_time: null,
} as const;

export const examplePhaseDurationReport = {
  object: "phase_duration_report",
  from: "2026-10-01T00:00:00.000000Z",
  to: "2026-11-01T00:00:00.000000Z",
  phases: [
    { phase: "before_getting_started", visits: 42, mean_active_seconds: 190512, median_active_seconds: 172800, p90_active_seconds: 345600 },
    { phase: "program_design", visits: 40, mean_active_seconds: 401233, median_active_seconds: 388800, p90_active_seconds: 604800 },
  ],
  launches: { count: 12, on_time: 9, late: 2, on_time_rate: 0.8181818181818182, mean_delay_seconds: 259200 },
} as const;

/** Request bodies as an integrator would send them: the reference's request samples. */
export const requestExamples = {
  createCustomer: { name: "Acme Corp", domain: "acme.example", status: "onboarding", metadata: { crm_id: "0015g00000XyZ" } },
  updateCustomer: { status: "active", metadata: { crm_id: "0015g00000XyZ", tier: "enterprise" } },
  createContact: { name: "Ada Lovelace", email: "ada@acme.example", title: "Head of Operations", is_primary: true },
  updateContact: { title: "VP Operations" },
  createOnboarding: {
    customer_id: exampleCustomer.id,
    target_launch_date: "2027-01-15T00:00:00Z",
    csm_id: "usr_01JDQ42A1B2C3D4E5F6G7H8J9K",
    template_id: "enterprise-90-day",
    notes: "Kick-off call booked.",
  },
  updateOnboarding: { phase: "review", state: "waiting", waiting_on_customer: true },
  createWebhookEndpoint: { url: "https://crm.example.com/hooks/onboarding", enabled_events: ["onboarding.phase_changed", "onboarding.state_changed"] as string[], description: "CRM sync" },
  updateWebhookEndpoint: { status: "enabled" },
  recoverWebhookEvents: { since: "2026-11-22T08:00:00Z" },
} as const;
