import { Paginated } from "../pagination.js";
import type { RequestOptions, Transport } from "../transport.js";
import type {
  DeletedWebhookEndpoint,
  WebhookAttempt,
  WebhookAttemptList,
  WebhookAttemptListParams,
  WebhookEndpoint,
  WebhookEndpointCreateParams,
  WebhookEndpointList,
  WebhookEndpointListParams,
  WebhookEndpointUpdateParams,
  WebhookEndpointWithSecret,
  WebhookPing,
  WebhookRecoverParams,
  WebhookRecovery,
} from "../types.js";
import { segment } from "./path.js";

/** `/api/v1/webhook_endpoints`. An endpoint is addressed by its `id` (`we_…`) only. */
export class WebhookEndpoints {
  constructor(private readonly transport: Transport) {}

  private path(id?: string, action?: string): string {
    return `/api/v1/webhook_endpoints${id === undefined ? "" : `/${segment(id)}`}${action === undefined ? "" : `/${action}`}`;
  }

  /** 201; the answer's `secret` (`whsec_…`) is shown here only: keep it for `verifyWebhook`. */
  create(params: WebhookEndpointCreateParams, options?: RequestOptions): Promise<WebhookEndpointWithSecret> {
    return this.transport.request({ method: "POST", path: this.path(), body: params }, options);
  }

  retrieve(id: string, options?: RequestOptions): Promise<WebhookEndpoint> {
    return this.transport.request({ method: "GET", path: this.path(id) }, options);
  }

  /** `url`, `enabled_events`, `description`, `status` (`enabled` clears `disabled_reason`). */
  update(id: string, params: WebhookEndpointUpdateParams, options?: RequestOptions): Promise<WebhookEndpoint> {
    return this.transport.request({ method: "PATCH", path: this.path(id), body: params }, options);
  }

  delete(id: string, options?: RequestOptions): Promise<DeletedWebhookEndpoint> {
    return this.transport.request({ method: "DELETE", path: this.path(id) }, options);
  }

  list(params: WebhookEndpointListParams = {}, options?: RequestOptions): Paginated<WebhookEndpoint, WebhookEndpointList> {
    const { cursor, ...query } = params;
    return new Paginated((at) => this.transport.request<WebhookEndpointList>({ method: "GET", path: this.path(), query: { ...query, cursor: at } }, options), cursor);
  }

  /** A new secret; the old one keeps signing beside it for 24 hours. */
  rotateSecret(id: string, options?: RequestOptions): Promise<WebhookEndpointWithSecret> {
    return this.transport.request({ method: "POST", path: this.path(id, "rotate_secret") }, options);
  }

  /** Queues one signed `ping` delivery (live keys only: a test key gets 403 `test_mode_outbound`). */
  ping(id: string, options?: RequestOptions): Promise<WebhookPing> {
    return this.transport.request({ method: "POST", path: this.path(id, "ping") }, options);
  }

  /** Its delivery attempts, newest first, page after page. */
  attempts(id: string, params: WebhookAttemptListParams = {}, options?: RequestOptions): Paginated<WebhookAttempt, WebhookAttemptList> {
    const { cursor, ...query } = params;
    return new Paginated((at) => this.transport.request<WebhookAttemptList>({ method: "GET", path: this.path(id, "attempts"), query: { ...query, cursor: at } }, options), cursor);
  }

  /** Queues again what it missed since `since` (up to 1,000; call again with `next_since` while `has_more`). */
  recover(id: string, params: WebhookRecoverParams, options?: RequestOptions): Promise<WebhookRecovery> {
    return this.transport.request({ method: "POST", path: this.path(id, "recover"), body: params }, options);
  }
}
