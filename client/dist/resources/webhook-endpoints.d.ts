import { Paginated } from "../pagination.js";
import type { RequestOptions, Transport } from "../transport.js";
import type { DeletedWebhookEndpoint, WebhookAttempt, WebhookAttemptList, WebhookAttemptListParams, WebhookEndpoint, WebhookEndpointCreateParams, WebhookEndpointList, WebhookEndpointListParams, WebhookEndpointUpdateParams, WebhookEndpointWithSecret, WebhookPing, WebhookRecoverParams, WebhookRecovery } from "../types.js";
/** `/api/v1/webhook_endpoints`. An endpoint is addressed by its `id` (`we_…`) only. */
export declare class WebhookEndpoints {
    private readonly transport;
    constructor(transport: Transport);
    private path;
    /** 201; the answer's `secret` (`whsec_…`) is shown here only: keep it for `verifyWebhook`. */
    create(params: WebhookEndpointCreateParams, options?: RequestOptions): Promise<WebhookEndpointWithSecret>;
    retrieve(id: string, options?: RequestOptions): Promise<WebhookEndpoint>;
    /** `url`, `enabled_events`, `description`, `status` (`enabled` clears `disabled_reason`). */
    update(id: string, params: WebhookEndpointUpdateParams, options?: RequestOptions): Promise<WebhookEndpoint>;
    delete(id: string, options?: RequestOptions): Promise<DeletedWebhookEndpoint>;
    list(params?: WebhookEndpointListParams, options?: RequestOptions): Paginated<WebhookEndpoint, WebhookEndpointList>;
    /** A new secret; the old one keeps signing beside it for 24 hours. */
    rotateSecret(id: string, options?: RequestOptions): Promise<WebhookEndpointWithSecret>;
    /** Queues one signed `ping` delivery (live keys only: a test key gets 403 `test_mode_outbound`). */
    ping(id: string, options?: RequestOptions): Promise<WebhookPing>;
    /** Its delivery attempts, newest first, page after page. */
    attempts(id: string, params?: WebhookAttemptListParams, options?: RequestOptions): Paginated<WebhookAttempt, WebhookAttemptList>;
    /** Queues again what it missed since `since` (up to 1,000; call again with `next_since` while `has_more`). */
    recover(id: string, params: WebhookRecoverParams, options?: RequestOptions): Promise<WebhookRecovery>;
}
