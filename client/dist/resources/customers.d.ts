import { Paginated } from "../pagination.js";
import type { RequestOptions, Transport } from "../transport.js";
import type { Customer, CustomerCreateParams, CustomerList, CustomerListParams, CustomerUpdateParams, DeletedCustomer, Ref } from "../types.js";
/** `/api/v1/customers`. A `Ref` is the customer's `id` or its `display_id`. */
export declare class Customers {
    private readonly transport;
    constructor(transport: Transport);
    /** 201; a retry (same `idempotencyKey`) answers the first creation again, never `slug_taken`. */
    create(params: CustomerCreateParams, options?: RequestOptions): Promise<Customer>;
    retrieve(ref: Ref, options?: RequestOptions): Promise<Customer>;
    /** Changes only what `params` holds; `metadata` is replaced whole. */
    update(ref: Ref, params: CustomerUpdateParams, options?: RequestOptions): Promise<Customer>;
    /** Deletes the customer with its contacts and onboardings. */
    delete(ref: Ref, options?: RequestOptions): Promise<DeletedCustomer>;
    /** Every customer (newest first), page after page; `limit` is the page size, `cursor` where to start. */
    list(params?: CustomerListParams, options?: RequestOptions): Paginated<Customer, CustomerList>;
}
