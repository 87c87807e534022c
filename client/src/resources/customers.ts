import { Paginated } from "../pagination.js";
import type { RequestOptions, Transport } from "../transport.js";
import type { Customer, CustomerCreateParams, CustomerList, CustomerListParams, CustomerUpdateParams, DeletedCustomer, Ref } from "../types.js";
import { segment } from "./path.js";

/** `/api/v1/customers`. A `Ref` is the customer's `id` or its `display_id`. */
export class Customers {
  constructor(private readonly transport: Transport) {}

  /** 201; a retry (same `idempotencyKey`) answers the first creation again, never `slug_taken`. */
  create(params: CustomerCreateParams, options?: RequestOptions): Promise<Customer> {
    return this.transport.request({ method: "POST", path: "/api/v1/customers", body: params }, options);
  }

  retrieve(ref: Ref, options?: RequestOptions): Promise<Customer> {
    return this.transport.request({ method: "GET", path: `/api/v1/customers/${segment(ref)}` }, options);
  }

  /** Changes only what `params` holds; `metadata` is replaced whole. */
  update(ref: Ref, params: CustomerUpdateParams, options?: RequestOptions): Promise<Customer> {
    return this.transport.request({ method: "PATCH", path: `/api/v1/customers/${segment(ref)}`, body: params }, options);
  }

  /** Deletes the customer with its contacts and onboardings. */
  delete(ref: Ref, options?: RequestOptions): Promise<DeletedCustomer> {
    return this.transport.request({ method: "DELETE", path: `/api/v1/customers/${segment(ref)}` }, options);
  }

  /** Every customer (newest first), page after page; `limit` is the page size, `cursor` where to start. */
  list(params: CustomerListParams = {}, options?: RequestOptions): Paginated<Customer, CustomerList> {
    const { cursor, ...query } = params;
    return new Paginated((at) => this.transport.request<CustomerList>({ method: "GET", path: "/api/v1/customers", query: { ...query, cursor: at } }, options), cursor);
  }
}
