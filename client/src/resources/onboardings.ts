import { Paginated } from "../pagination.js";
import type { RequestOptions, Transport } from "../transport.js";
import type {
  DeletedOnboarding,
  Onboarding,
  OnboardingCreateParams,
  OnboardingList,
  OnboardingListParams,
  OnboardingUpdateParams,
  PhaseDurations,
  Ref,
} from "../types.js";
import { segment } from "./path.js";

/** `/api/v1/onboardings`. A `Ref` is the onboarding's `id` or its `display_id`. */
export class Onboardings {
  constructor(private readonly transport: Transport) {}

  /** 201; `customer_id` takes the customer's `id` or `display_id`. A retry never makes a second onboarding. */
  create(params: OnboardingCreateParams, options?: RequestOptions): Promise<Onboarding> {
    return this.transport.request({ method: "POST", path: "/api/v1/onboardings", body: params }, options);
  }

  retrieve(ref: Ref, options?: RequestOptions): Promise<Onboarding> {
    return this.transport.request({ method: "GET", path: `/api/v1/onboardings/${segment(ref)}` }, options);
  }

  /** Any create field but `customer_id`, plus `waiting_on_customer` and `wizard_completed_at`. */
  update(ref: Ref, params: OnboardingUpdateParams, options?: RequestOptions): Promise<Onboarding> {
    return this.transport.request({ method: "PATCH", path: `/api/v1/onboardings/${segment(ref)}`, body: params }, options);
  }

  delete(ref: Ref, options?: RequestOptions): Promise<DeletedOnboarding> {
    return this.transport.request({ method: "DELETE", path: `/api/v1/onboardings/${segment(ref)}` }, options);
  }

  /** Every onboarding (newest first), page after page; `phase` and `state` filter. */
  list(params: OnboardingListParams = {}, options?: RequestOptions): Paginated<Onboarding, OnboardingList> {
    return this.paged("/api/v1/onboardings", params, options);
  }

  /** The onboardings of one customer, with the same filters as `list`. */
  listForCustomer(customer: Ref, params: OnboardingListParams = {}, options?: RequestOptions): Paginated<Onboarding, OnboardingList> {
    return this.paged(`/api/v1/customers/${segment(customer)}/onboardings`, params, options);
  }

  /** Time per phase by the SLA clock, the current visit counted up to now. */
  phaseDurations(ref: Ref, options?: RequestOptions): Promise<PhaseDurations> {
    return this.transport.request({ method: "GET", path: `/api/v1/onboardings/${segment(ref)}/phase_durations` }, options);
  }

  private paged(path: string, params: OnboardingListParams, options: RequestOptions | undefined): Paginated<Onboarding, OnboardingList> {
    const { cursor, ...query } = params;
    return new Paginated((at) => this.transport.request<OnboardingList>({ method: "GET", path, query: { ...query, cursor: at } }, options), cursor);
  }
}
