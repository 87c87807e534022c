import { Paginated } from "../pagination.js";
import type { RequestOptions, Transport } from "../transport.js";
import type { Contact, ContactCreateParams, ContactList, ContactListParams, ContactUpdateParams, DeletedContact, Ref } from "../types.js";
/** `/api/v1/customers/{customer_ref}/contacts`: a contact is always addressed under its customer, so every method takes the customer first. */
export declare class Contacts {
    private readonly transport;
    constructor(transport: Transport);
    private path;
    /** 201; making it primary clears the customer's previous primary contact. */
    create(customer: Ref, params: ContactCreateParams, options?: RequestOptions): Promise<Contact>;
    retrieve(customer: Ref, contact: Ref, options?: RequestOptions): Promise<Contact>;
    update(customer: Ref, contact: Ref, params: ContactUpdateParams, options?: RequestOptions): Promise<Contact>;
    delete(customer: Ref, contact: Ref, options?: RequestOptions): Promise<DeletedContact>;
    /** Every contact of the customer (newest first), page after page. */
    list(customer: Ref, params?: ContactListParams, options?: RequestOptions): Paginated<Contact, ContactList>;
}
