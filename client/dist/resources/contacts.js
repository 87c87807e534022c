import { Paginated } from "../pagination.js";
import { segment } from "./path.js";
/** `/api/v1/customers/{customer_ref}/contacts`: a contact is always addressed under its customer, so every method takes the customer first. */
export class Contacts {
    transport;
    constructor(transport) {
        this.transport = transport;
    }
    path(customer, contact) {
        return `/api/v1/customers/${segment(customer)}/contacts${contact === undefined ? "" : `/${segment(contact)}`}`;
    }
    /** 201; making it primary clears the customer's previous primary contact. */
    create(customer, params, options) {
        return this.transport.request({ method: "POST", path: this.path(customer), body: params }, options);
    }
    retrieve(customer, contact, options) {
        return this.transport.request({ method: "GET", path: this.path(customer, contact) }, options);
    }
    update(customer, contact, params, options) {
        return this.transport.request({ method: "PATCH", path: this.path(customer, contact), body: params }, options);
    }
    delete(customer, contact, options) {
        return this.transport.request({ method: "DELETE", path: this.path(customer, contact) }, options);
    }
    /** Every contact of the customer (newest first), page after page. */
    list(customer, params = {}, options) {
        const { cursor, ...query } = params;
        return new Paginated((at) => this.transport.request({ method: "GET", path: this.path(customer), query: { ...query, cursor: at } }, options), cursor);
    }
}
