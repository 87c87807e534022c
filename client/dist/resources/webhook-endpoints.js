import { Paginated } from "../pagination.js";
import { segment } from "./path.js";
/** `/api/v1/webhook_endpoints`. An endpoint is addressed by its `id` (`we_…`) only. */
export class WebhookEndpoints {
    transport;
    constructor(transport) {
        this.transport = transport;
    }
    path(id, action) {
        return `/api/v1/webhook_endpoints${id === undefined ? "" : `/${segment(id)}`}${action === undefined ? "" : `/${action}`}`;
    }
    /** 201; the answer's `secret` (`whsec_…`) is shown here only: keep it for `verifyWebhook`. */
    create(params, options) {
        return this.transport.request({ method: "POST", path: this.path(), body: params }, options);
    }
    retrieve(id, options) {
        return this.transport.request({ method: "GET", path: this.path(id) }, options);
    }
    /** `url`, `enabled_events`, `description`, `status` (`enabled` clears `disabled_reason`). */
    update(id, params, options) {
        return this.transport.request({ method: "PATCH", path: this.path(id), body: params }, options);
    }
    delete(id, options) {
        return this.transport.request({ method: "DELETE", path: this.path(id) }, options);
    }
    list(params = {}, options) {
        const { cursor, ...query } = params;
        return new Paginated((at) => this.transport.request({ method: "GET", path: this.path(), query: { ...query, cursor: at } }, options), cursor);
    }
    /** A new secret; the old one keeps signing beside it for 24 hours. */
    rotateSecret(id, options) {
        return this.transport.request({ method: "POST", path: this.path(id, "rotate_secret") }, options);
    }
    /** Queues one signed `ping` delivery (live keys only: a test key gets 403 `test_mode_outbound`). */
    ping(id, options) {
        return this.transport.request({ method: "POST", path: this.path(id, "ping") }, options);
    }
    /** Its delivery attempts, newest first, page after page. */
    attempts(id, params = {}, options) {
        const { cursor, ...query } = params;
        return new Paginated((at) => this.transport.request({ method: "GET", path: this.path(id, "attempts"), query: { ...query, cursor: at } }, options), cursor);
    }
    /** Queues again what it missed since `since` (up to 1,000; call again with `next_since` while `has_more`). */
    recover(id, params, options) {
        return this.transport.request({ method: "POST", path: this.path(id, "recover"), body: params }, options);
    }
}
