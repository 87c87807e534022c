import { Paginated } from "../pagination.js";
import type { RequestOptions, Transport } from "../transport.js";
import type { Contact, ContactCreateParams, ContactList, ContactListParams, ContactUpdateParams, DeletedContact, Ref } from "../types.js";
import { segment } from "./path.js";

/** `/api/v1/customers/{customer_ref}/contacts`: a contact is always addressed under its customer, so every method takes the customer first. */
export class Contacts {
  constructor(private readonly transport: Transport) {}

  private path(customer: Ref, contact?: Ref): string {
    return `/api/v1/customers/${segment(customer)}/contacts${contact === undefined ? "" : `/${segment(contact)}`}`;
  }

  /** 201; making it primary clears the customer's previous primary contact. */
  create(customer: Ref, params: ContactCreateParams, options?: RequestOptions): Promise<Contact> {
    return this.transport.request({ method: "POST", path: this.path(customer), body: params }, options);
  }

  retrieve(customer: Ref, contact: Ref, options?: RequestOptions): Promise<Contact> {
    return this.transport.request({ method: "GET", path: this.path(customer, contact) }, options);
  }

  update(customer: Ref, contact: Ref, params: ContactUpdateParams, options?: RequestOptions): Promise<Contact> {
    return this.transport.request({ method: "PATCH", path: this.path(customer, contact), body: params }, options);
  }

  delete(customer: Ref, contact: Ref, options?: RequestOptions): Promise<DeletedContact> {
    return this.transport.request({ method: "DELETE", path: this.path(customer, contact) }, options);
  }

  /** Every contact of the customer (newest first), page after page. */
  list(customer: Ref, params: ContactListParams = {}, options?: RequestOptions): Paginated<Contact, ContactList> {
    const { cursor, ...query } = params;
    return new Paginated((at) => this.transport.request<ContactList>({ method: "GET", path: this.path(customer), query: { ...query, cursor: at } }, options), cursor);
  }
}
