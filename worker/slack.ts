import { run } from "../shared/db/flow.ts";
import { ErrorCode, LogLevel, WebClient, type WebAPIPlatformError } from "@slack/web-api";
import type { WorkerLookups } from "./stores.ts";
import { decryptSecret } from "../shared/secrets.ts";
import type { DeliveryOutcome } from "./deliveries.ts";
import { PermanentFailure } from "./failures.ts";

export interface SlackSettings {
  /** Slack's Web API address; a loopback stand-in in tests. */
  apiUrl: string | null;
  /** SLACK_BOT_TOKEN: for workspaces without a token of their own. */
  fallbackToken: string | null;
  secretKey: string | null;
}

/** Slack errors that no retry can fix. Anything else (rate limits, 5xx, network) is retried. */
const PERMANENT = new Set([
  "not_authed",
  "invalid_auth",
  "account_inactive",
  "token_revoked",
  "token_expired",
  "no_permission",
  "missing_scope",
  "not_allowed_token_type",
  "user_not_found",
  "users_not_found",
  "user_disabled",
  "channel_not_found",
  "cannot_dm_bot",
  "invalid_arguments",
  "invalid_metadata_format",
]);

function classify(error: unknown): Error {
  if ((error as { code?: string }).code === ErrorCode.PlatformError) {
    const slackError = (error as WebAPIPlatformError).data.error;
    if (PERMANENT.has(slackError)) return new PermanentFailure(`Slack refused: ${slackError}`);
    return new Error(`Slack error: ${slackError}`);
  }
  return error instanceof Error ? error : new Error(String(error));
}

/** What a search for an earlier attempt's message found. */
type EarlierPost = { found: true } | { found: false } | { unknowable: string };

/** Slack's clock and ours may differ a little: search from this much before our send time. */
const CLOCK_SKEW_SECONDS = 60;
/** Messages per page of history (Slack allows up to 999 and advises 200). */
const HISTORY_PAGE = 200;
/** Past this many pages since the send time the search gives up and says it cannot tell. */
const HISTORY_MAX_PAGES = 50;

export type DirectMessageResult = "posted" | "found" | { unknowable: string };

/**
 * Direct messages through `@slack/web-api`. BullMQ owns retries (with exponential backoff),
 * so the client itself does not retry.
 *
 * Exactly once: a message carries its delivery id as Slack message metadata, and the
 * delivery records when an attempt first handed it to Slack (`sending`). An attempt that
 * follows one which got that far (a crash, a timeout: Slack may have the message while we
 * never heard back) searches the conversation from that time on, page by page with Slack's
 * `oldest` and `cursor`, however many other messages arrived since. If the history cannot be
 * read (a missing scope) or the search runs past its bound, the answer is `unknowable` and
 * nothing is posted: the delivery says so rather than guess.
 */
export function createSlackGateway(lookups: Pick<WorkerLookups, "slackToken">, settings: SlackSettings) {
  const clients = new Map<string, WebClient>();

  async function tokenFor(orgId: string): Promise<string> {
    const sealed = await run(lookups.slackToken(orgId));
    if (sealed !== null) {
      if (!settings.secretKey) throw new PermanentFailure("the workspace's Slack token is stored but SECRET_KEY is not set");
      try {
        return decryptSecret(settings.secretKey, sealed);
      } catch {
        throw new PermanentFailure("the workspace's Slack token cannot be decrypted with this SECRET_KEY");
      }
    }
    if (settings.fallbackToken) return settings.fallbackToken;
    throw new PermanentFailure("no Slack token: set the workspace's with `admin workspace update --slack-token-file` (or in the admin area) or SLACK_BOT_TOKEN");
  }

  function client(token: string): WebClient {
    let web = clients.get(token);
    if (!web) {
      web = new WebClient(token, {
        ...(settings.apiUrl ? { slackApiUrl: settings.apiUrl.endsWith("/") ? settings.apiUrl : `${settings.apiUrl}/` } : {}),
        retryConfig: { retries: 0 },
        rejectRateLimitedCalls: true,
        logLevel: LogLevel.ERROR,
      });
      clients.set(token, web);
    }
    return web;
  }

  async function findEarlier(web: WebClient, channel: string, deliveryId: string, sentAtMicros: number): Promise<EarlierPost> {
    const oldest = (sentAtMicros / 1_000_000 - CLOCK_SKEW_SECONDS).toFixed(6);
    let cursor: string | undefined;
    for (let page = 0; page < HISTORY_MAX_PAGES; page++) {
      let history;
      try {
        history = await web.conversations.history({ channel, oldest, limit: HISTORY_PAGE, include_all_metadata: true, cursor });
      } catch (error) {
        const classified = classify(error);
        if (classified instanceof PermanentFailure) return { unknowable: `Slack's history cannot be read (${classified.message})` };
        throw classified;
      }
      const earlier = history.messages?.some(
        (m) => (m as { metadata?: { event_payload?: { delivery_id?: string } } }).metadata?.event_payload?.delivery_id === deliveryId,
      );
      if (earlier) return { found: true };
      cursor = history.response_metadata?.next_cursor || undefined;
      if (!history.has_more || !cursor) return { found: false };
    }
    return { unknowable: `more than ${HISTORY_MAX_PAGES * HISTORY_PAGE} messages since the earlier attempt` };
  }

  return {
    async directMessage(input: {
      orgId: string;
      slackUserId: string;
      text: string;
      deliveryId: string;
      /** When an earlier attempt handed this message to Slack, or null. */
      earlierSendAt: number | null;
      /** Called, and waited for, right before the message is handed over. */
      sending: () => Promise<void>;
    }): Promise<DirectMessageResult> {
      const web = client(await tokenFor(input.orgId));
      let channel: string | undefined;
      try {
        const opened = await web.conversations.open({ users: input.slackUserId });
        channel = opened.channel?.id;
      } catch (error) {
        throw classify(error);
      }
      if (!channel) throw new Error("Slack opened no conversation");
      if (input.earlierSendAt !== null) {
        const earlier = await findEarlier(web, channel, input.deliveryId, input.earlierSendAt);
        if ("unknowable" in earlier) return earlier;
        if (earlier.found) return "found";
      }
      await input.sending();
      try {
        await web.chat.postMessage({
          channel,
          text: input.text,
          metadata: { event_type: "onboarding_notification", event_payload: { delivery_id: input.deliveryId } },
        });
      } catch (error) {
        throw classify(error);
      }
      return "posted";
    },
  };
}

/** A delivery's outcome for a direct message's result. */
export function directMessageOutcome(result: DirectMessageResult, slackUserId: string): DeliveryOutcome {
  if (result === "posted") return { status: "sent", detail: "direct message posted", target: slackUserId };
  if (result === "found") return { status: "sent", detail: "posted by an earlier attempt", target: slackUserId };
  return {
    status: "uncertain",
    detail: `an earlier attempt may have posted this message and it cannot be checked: ${result.unknowable}; not posted again, to avoid a duplicate`,
    target: slackUserId,
  };
}

export type SlackGateway = ReturnType<typeof createSlackGateway>;
