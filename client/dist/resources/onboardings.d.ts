import { Paginated } from "../pagination.js";
import type { RequestOptions, Transport } from "../transport.js";
import type { DeletedOnboarding, Onboarding, OnboardingCreateParams, OnboardingList, OnboardingListParams, OnboardingUpdateParams, PhaseDurations, Ref } from "../types.js";
/** `/api/v1/onboardings`. A `Ref` is the onboarding's `id` or its `display_id`. */
export declare class Onboardings {
    private readonly transport;
    constructor(transport: Transport);
    /** 201; `customer_id` takes the customer's `id` or `display_id`. A retry never makes a second onboarding. */
    create(params: OnboardingCreateParams, options?: RequestOptions): Promise<Onboarding>;
    retrieve(ref: Ref, options?: RequestOptions): Promise<Onboarding>;
    /** Any create field but `customer_id`, plus `waiting_on_customer` and `wizard_completed_at`. */
    update(ref: Ref, params: OnboardingUpdateParams, options?: RequestOptions): Promise<Onboarding>;
    delete(ref: Ref, options?: RequestOptions): Promise<DeletedOnboarding>;
    /** Every onboarding (newest first), page after page; `phase` and `state` filter. */
    list(params?: OnboardingListParams, options?: RequestOptions): Paginated<Onboarding, OnboardingList>;
    /** The onboardings of one customer, with the same filters as `list`. */
    listForCustomer(customer: Ref, params?: OnboardingListParams, options?: RequestOptions): Paginated<Onboarding, OnboardingList>;
    /** Time per phase by the SLA clock, the current visit counted up to now. */
    phaseDurations(ref: Ref, options?: RequestOptions): Promise<PhaseDurations>;
    private paged;
}
